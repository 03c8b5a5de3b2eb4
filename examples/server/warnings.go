package main

import (
	"context"
	"log/slog"
	"net"

	"github.com/chatcore/chatcore"
)

// maxListedProblems is how many fixture problems fixture.Load lists at most
// (its error's Data["errors"]); a list this long may have been cut.
const maxListedProblems = 100

// warnPublishedKeys logs a warning when the server listens beyond loopback
// while the demo organization's published API keys (printed in the README)
// still log in: anyone who can reach the address can act as its owner.
func warnPublishedKeys(ctx context.Context, logger *slog.Logger, svc *chatcore.Service, addr net.Addr, demo bool) {
	if !demo || loopbackOnly(addr) {
		return
	}
	admin, member := fixtureCredentials(demoFixture)
	if loginAs(ctx, svc, admin) == nil && loginAs(ctx, svc, member) == nil {
		return
	}
	logger.Warn("listening beyond loopback with the demo organization, whose API keys are published in the README: anyone reaching this address can log in as its owner; listen on 127.0.0.1, or seed your own organization with -seed into a new -db",
		"addr", addr.String())
}
