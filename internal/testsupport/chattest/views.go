package chattest

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/messages"
)

// MessageAs returns message id as viewer's GET /messages/{id} shows it
// (flags and reactions included), failing the test when viewer cannot read it.
func MessageAs(tb testing.TB, svc *chatcore.Service, viewer *chatcore.User, id chatcore.MessageID) chatcore.MessageView {
	tb.Helper()
	v, _, err := messages.One(context.Background(), svc, viewer.ID, id, messages.OneRequest{})
	if err != nil {
		tb.Fatalf("messages.One: %v", err)
	}
	return v
}

// Channels are the channels [World.SeedChannels] stores.
type Channels struct {
	// General is public, with the cast's owner, admin, member and guest.
	General *chatcore.Stream
	// Secret is invite-only, with the owner and the member.
	Secret *chatcore.Stream
	// Elsewhere is a channel of the second realm, with the stranger.
	Elsewhere *chatcore.Stream
}

// SeedChannels stores the [Channels] for the cast c of [World.SeedCast].
func (w *World) SeedChannels(tb testing.TB, c *Cast) Channels {
	tb.Helper()
	return Channels{
		General:   w.AddChannel(tb, Channel{Name: "general", Subscribers: []*chatcore.User{c.Owner, c.Admin, c.Member, c.Guest}}),
		Secret:    w.AddChannel(tb, Channel{Name: "secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Owner, c.Member}}),
		Elsewhere: w.AddChannel(tb, Channel{Name: "lear", Subscribers: []*chatcore.User{c.Stranger}}),
	}
}
