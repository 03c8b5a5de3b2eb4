package chatcore

import "github.com/chatcore/chatcore/store"

// The topic filters of a message query ([store.TopicFilter]) under the root
// package.
const (
	TopicsAll             = store.TopicsAll
	TopicsInHome          = store.TopicsInHome
	TopicsInHomeOfChannel = store.TopicsInHomeOfChannel
	TopicsMuted           = store.TopicsMuted
	TopicsFollowed        = store.TopicsFollowed
)

// TopicFilter is [store.TopicFilter].
type TopicFilter = store.TopicFilter

// UserTopic is [store.UserTopic].
type UserTopic = store.UserTopic
