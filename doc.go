// Package chatcore is the domain core of a team-chat server that speaks the
// Zulip REST API for the operations it covers: user settings, topic deletion,
// user deactivation, scheduled messages, linkifiers, reminders and outgoing
// webhooks.
//
// # Shape
//
// A [Service] carries out operations with Zulip's rules on top of a [Store].
// Stores live under store/: store/memory (for tests and embedding) and
// store/sqlite (the embedded default); store/storetest is the conformance suite
// both pass. The optional httpadapter package serves the Service over HTTP in
// Zulip's wire format. Package fixture seeds a store with organisations
// described in chatcore's JSON fixture format (the example server's -seed),
// checking them with the Service's own rules.
//
// # Errors
//
// Service methods return an [*Error] for every request they refuse, carrying
// Zulip's wire code, its exact message and a transport-neutral [Kind]. Any other
// error is an internal failure whose text must not reach users.
//
// # Transactions and events
//
// Every operation runs in one store transaction (topic deletion: one per batch),
// so a failure leaves no half state. Events and e-mails are published only after
// the transaction they describe has committed.
package chatcore
