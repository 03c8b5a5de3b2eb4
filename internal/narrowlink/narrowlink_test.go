package narrowlink_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/narrowlink"
)

func TestEncodeHashComponent(t *testing.T) {
	is := is.New(t)
	is.Equal(narrowlink.EncodeHashComponent("a b.c*%"), "a.20b.2Ec*.25") // Zulip's narrow encoding
}

// TestFragments checks the web app's narrow URL fragments.
func TestFragments(t *testing.T) {
	is := is.New(t)
	is.Equal(narrowlink.Channel(7, "Core team"), "#narrow/channel/7-Core-team")                                   // spaces as "-"
	is.Equal(narrowlink.Topic(7, "Core team", "Straße 42"), "#narrow/channel/7-Core-team/topic/Stra.C3.9Fe.2042") // topic encoded
	is.Equal(narrowlink.ChannelMessage(7, "design", "", 99), "#narrow/channel/7-design/topic//near/99")           // the empty topic
	is.Equal(narrowlink.DirectMessage([]int64{3, 5}, 12), "#narrow/dm/3,5/near/12")                               // two participants
	type userID int64
	is.Equal(narrowlink.DirectMessage([]userID{3, 5, 8}, 12), "#narrow/dm/3,5,8-group/near/12") // a group conversation
}

// TestSyntax checks the Markdown of topic and message links: Zulip's
// #**channel>topic** syntax when the names allow it, else a plain link.
func TestSyntax(t *testing.T) {
	is := is.New(t)
	is.Equal(narrowlink.TopicSyntax(7, "design", "logo", "general chat"), "#**design>logo**")
	is.Equal(narrowlink.MessageSyntax(7, "design", "logo", "general chat", 99), "#**design>logo@99**")
	is.Equal(narrowlink.TopicSyntax(7, "a*b", "", "general chat"),
		"[#a&#42;b > general chat](#narrow/channel/7-a*b/topic/)") // a name that breaks the syntax; the empty topic shown by name
	is.Equal(narrowlink.MessageSyntax(7, "design", "x > y", "general chat", 99),
		"[#design > x &gt; y @ 💬](#narrow/channel/7-design/topic/x.20.3E.20y/near/99)")
}
