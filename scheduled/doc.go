// Package scheduled applies Zulip's rules for scheduled messages and
// reminders, and delivers them when they are due.
//
// It serves POST, GET, PATCH and DELETE /scheduled_messages ([Create],
// [List], [Edit], [Delete]) and POST, GET and DELETE /reminders
// ([CreateReminder], [Reminders], [DeleteReminder]) as a Go API over a
// [chatcore.Service]. [DeliverDue] sends the rows that are due, one pass;
// [Run] makes one pass every interval until its context ends. A scheduled
// message is sent as its sender with the checks of
// [chatcore.Service.SendMessage]; a reminder is sent to its owner by the
// realm's notification bot ([chatcore.Service.NotificationBot]). A delivery
// that is refused marks the row failed and tells its sender; a passing
// failure is retried once, and one bad row never holds up the others.
package scheduled
