// Package narrowlink writes links to Zulip conversations: the web app's
// narrow URL fragments ("#narrow/channel/…", "#narrow/dm/…") and the Markdown
// that links a topic or a message.
package narrowlink

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// EncodeHashComponent encodes s for a Zulip narrow URL: every byte but
// unreserved characters and "*" is percent-encoded with "." in place of "%",
// and "." itself is written ".2E".
func EncodeHashComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && (isUnreserved(c) || c == '*') {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, ".%02X", c)
	}
	return b.String()
}

// isUnreserved reports whether c is an RFC 3986 unreserved character.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

// Channel returns the fragment of a channel: "#narrow/channel/<id>-<name>",
// the name's spaces written as "-".
func Channel(channelID int64, channel string) string {
	return "#narrow/channel/" + strconv.FormatInt(channelID, 10) + "-" + EncodeHashComponent(strings.ReplaceAll(channel, " ", "-"))
}

// Topic returns the fragment of a topic: the channel's, then "/topic/<topic>".
func Topic(channelID int64, channel, topic string) string {
	return Channel(channelID, channel) + "/topic/" + EncodeHashComponent(topic)
}

// ChannelMessage returns the fragment of a channel message: the topic's, then
// "/near/<id>".
func ChannelMessage(channelID int64, channel, topic string, messageID int64) string {
	return Topic(channelID, channel, topic) + "/near/" + strconv.FormatInt(messageID, 10)
}

// DirectMessage returns the fragment of a direct message:
// "#narrow/dm/<ids>/near/<id>", members being every participant by id,
// comma-separated, with "-group" after three or more.
func DirectMessage[ID ~int64](members []ID, messageID int64) string {
	parts := make([]string, len(members))
	for i, u := range members {
		parts[i] = strconv.FormatInt(int64(u), 10)
	}
	slug := strings.Join(parts, ",")
	if len(members) >= 3 {
		slug += "-group"
	}
	return "#narrow/dm/" + slug + "/near/" + strconv.FormatInt(messageID, 10)
}

// brokenLinkChars are the characters that break Zulip's #**channel>topic**
// link syntax.
var brokenLinkChars = regexp.MustCompile("[`>*&\\[\\]]|\\$\\$")

var linkTextEscapes = map[string]string{
	"`": "&#96;", ">": "&gt;", "*": "&#42;", "&": "&amp;", "$$": "&#36;&#36;", "[": "&#91;", "]": "&#93;",
}

// escapeLinkText escapes the characters of brokenLinkChars as HTML entities.
func escapeLinkText(s string) string {
	return brokenLinkChars.ReplaceAllStringFunc(s, func(m string) string { return linkTextEscapes[m] })
}

// TopicSyntax returns Zulip's #**channel>topic** Markdown for a topic, or,
// when a name would break that syntax, a plain Markdown link to the topic's
// fragment, whose text shows the empty topic as emptyTopicName.
func TopicSyntax(channelID int64, channel, topic, emptyTopicName string) string {
	if !brokenLinkChars.MatchString(channel) && !brokenLinkChars.MatchString(topic) {
		return fmt.Sprintf("#**%s>%s**", channel, topic)
	}
	return fmt.Sprintf("[#%s > %s](%s)", escapeLinkText(channel), escapeLinkText(shown(topic, emptyTopicName)), Topic(channelID, channel, topic))
}

// MessageSyntax returns Zulip's #**channel>topic@id** Markdown for a channel
// message, or, when a name would break that syntax, a plain Markdown link to
// the message's fragment, whose text shows the empty topic as emptyTopicName.
func MessageSyntax(channelID int64, channel, topic, emptyTopicName string, messageID int64) string {
	if !brokenLinkChars.MatchString(channel) && !brokenLinkChars.MatchString(topic) {
		return fmt.Sprintf("#**%s>%s@%d**", channel, topic, messageID)
	}
	return fmt.Sprintf("[#%s > %s @ 💬](%s)", escapeLinkText(channel), escapeLinkText(shown(topic, emptyTopicName)),
		ChannelMessage(channelID, channel, topic, messageID))
}

// shown is topic as a link's text shows it.
func shown(topic, emptyTopicName string) string {
	if topic == "" {
		return emptyTopicName
	}
	return topic
}
