// Package messages reads messages — GET /messages with its narrows and
// anchors, single messages and their edit history — and changes each user's
// message flags, read (the unread state), starred and collapsed (POST
// /messages/flags and /messages/flags/narrow).
//
// Its functions take the [chatcore.Service] they act through; errors are
// [chatcore.Error] values with Zulip's codes and texts.
package messages
