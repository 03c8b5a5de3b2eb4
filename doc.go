// Package chatcore is the domain core of a team-chat server that speaks the
// Zulip REST API for the operations it covers. This package is the kernel:
// the [Service] and its options, the building blocks every operation shares,
// and the rules of sending messages and of outgoing webhooks. Each endpoint's
// rules live in an area package built on it (listed below), never here.
//
// # Start here
//
//  1. Open a store: memory.New() (package store/memory) for tests,
//     sqlite.Open(ctx, "chat.db") for one machine, postgres.Open(ctx, url)
//     for several instances on one database.
//  2. Build the Service over it: chatcore.New(st, options...). The options
//     that matter first: [WithExternalURL] (the server's URL as clients
//     reach it; every link, realm_url included, is built from it, and the
//     HTTP adapter reads it through [Service.ExternalURL]), [WithLogger],
//     [WithMailer]; webhooks.Delivery(...) turns on outgoing webhooks.
//  3. Load an organization: fixture.Load(ctx, svc, file) reads chatcore's
//     JSON fixture format (docs/fixture.md, fixture/fixture.schema.json;
//     testdata/demo.json is a complete example), checking everything first.
//  4. Call operations as a user: [Service.Authenticate] turns an e-mail and
//     API key into a [User]; then the area packages' functions take the
//     actor's id: [Service.SendMessage], messages.Get (reading with
//     narrows), edits.Update, accounts.UpdateSettings, channels.Subscribe,
//     scheduled.Create, ... A refusal is an [*Error] with Zulip's code and
//     message. Optional request fields are pointers: write new(value)
//     (Go 1.26), e.g. messages.Request{Anchor: new("newest"), NumBefore: new(10)}.
//  5. Follow changes: eventqueue.New(svc, ...) is the process's Hub;
//     Hub.Open registers a queue, Queue.Events yields its events and
//     eventqueue.Decode turns each into a typed struct (eventqueue.MessageEvent, ...).
//  6. Serve Zulip clients: httpadapter.New(svc, httpadapter.Options{...})
//     is an http.Handler for the REST API (with /healthz, /readyz, request
//     ids and logs); httpadapter.NewServer adds timeouts; package metrics
//     exposes Prometheus metrics as one prometheus.Collector.
//
// The Example functions show each step as a runnable program: Example
// (this package), messages.ExampleGet, eventqueue.ExampleHub_Open,
// fixture.ExampleLoad and httpadapter.ExampleNew_options; examples/server
// is the whole server, flags and all.
//
// # Shape
//
// A [Service] carries out operations with Zulip's rules on top of a [Store].
// The store contract (ids, entities, flags, the Store and Tx interfaces, the
// sentinel errors, the event log's entries) is package store; this package
// names the same types ([User] is store.User), so embedders need one import.
// Stores live beside the contract: store/memory (for tests and embedding),
// store/sqlite (the embedded default) and store/postgres; store/storetest is
// the conformance suite they all pass. The optional httpadapter package serves
// the Service over HTTP in Zulip's wire format.
//
// The area packages: accounts (settings, account changes, users and their
// deactivation), messages (GET /messages with its narrows, single messages,
// edit history, per-user flags and unread state), edits (editing, moving and
// deleting messages), channels (channels, subscriptions and topic deletion),
// linkifiers (a realm's linkifiers; rendering with them stays here), scheduled
// (scheduled messages and reminders, and their delivery), reactions, presence,
// typing, and eventqueue (event queues and POST /register). They share the
// building blocks this package exports: [Service.Update] runs a function in
// one transaction and publishes its [Effects] after the commit, [Actor] and
// the access checks ([CanSee], [StreamAccessFor]) apply Zulip's permissions,
// [Service.RenderChecked] and [Service.SendInTx] render and send inside a
// transaction, and [DeletionEffects] records what deleting a batch of
// messages tells whom. An embedder's own operations can use them the same
// way. Package fixture seeds a store from chatcore's JSON fixture format,
// checking it with the Service's own rules; package webhooks delivers
// outgoing webhooks, plugged in through [WithMessageHook].
//
// # Settings
//
// Each personal setting is one row of the table of package settings
// (settings.Table: wire name, type, default, allowed values, who may change
// it); [Settings] (settings.Settings), [DefaultSettings] and the setting fields
// of accounts.SettingsUpdate are generated from it (go generate). Adding a
// setting is a table row, go generate, and in each SQL store (store/sqlite
// and store/postgres) a migration that adds the setting's column; the memory
// store needs nothing more.
//
// # Message flags
//
// Whether a user received a message is derived, not stored per recipient: a
// channel message was received by the users whose subscription covers its id
// ([Subscription.SinceMessageID]), a direct message by its participants.
// Stores keep a row of [MessageFlags] only where a user's flags differ from
// the message's defaults, so a send costs the same whatever the number of
// subscribers, apart from the list of users its event goes to.
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
//
// # Event queues
//
// Every event an operation records is also appended to the store's event log
// ([EventStore]) inside the operation's own transaction, so an event exists
// exactly when its change has committed ([Service.OnEventsCommitted] tells
// who may have new events). Package eventqueue owns the event queues: a queue
// (registered with POST /register's state, see eventqueue.State) is a row of
// the store, its options and a cursor over the log; that package applies
// Zulip's rules to the log's entries for one queue, acknowledges what the
// client handled, expires, drops and prunes ([PruneEventLog]), and adds the
// waiting long-polls and the Go iterator.
package chatcore
