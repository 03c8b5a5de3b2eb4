// Package edits applies Zulip's rules for editing, moving and deleting messages.
package edits
