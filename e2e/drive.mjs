// drive.mjs: the real zulip-js 2.1.0 client drives chatcore's example server
// through the seven operations (and what they need around them), and
// receives events on a queue.
//
// Usage: E2E_CONFIG='{"url": "...", "owner": {"email": "...", "key": "..."}, ...}' node drive.mjs
// Exits non-zero, naming the failed step, when any assertion fails.
import assert from 'node:assert/strict';
import zulipInit from 'zulip-js';

const cfg = JSON.parse(process.env.E2E_CONFIG);

const connect = (who) => zulipInit({ realm: cfg.url, username: who.email, apiKey: who.key });

const owner = await connect(cfg.owner);
const member = await connect(cfg.member);
const target = cfg.target;

let step = '';
const ok = (res) => {
  assert.equal(res.result, 'success', `${step}: ${JSON.stringify(res)}`);
  return res;
};
const fails = (res, code, msg) => {
  assert.equal(res.result, 'error', `${step}: expected an error, got ${JSON.stringify(res)}`);
  assert.equal(res.code, code, `${step}: ${JSON.stringify(res)}`);
  assert.equal(res.msg, msg, `${step}: ${JSON.stringify(res)}`);
};
const in1h = () => Math.floor(Date.now() / 1000) + 3600;

try {
  step = 'server settings';
  const settings = ok(await owner.server.settings());
  assert.equal(settings.zulip_feature_level, 467);
  assert.match(settings.zulip_version, /^chatcore /);

  step = 'users/me';
  const me = ok(await member.users.me.getProfile());
  assert.equal(me.email, cfg.member.email);

  // Events: the member's queue receives a message another user sends, its
  // own settings change, a topic deletion and a typing notification.
  step = 'register an event queue';
  const queue = ok(await member.queues.register({
    event_types: ['message', 'user_settings', 'delete_message', 'typing'],
  }));
  assert.equal(typeof queue.queue_id, 'string');
  assert.equal(queue.last_event_id, -1);
  let lastEventId = queue.last_event_id;
  const seen = [];
  // awaitEvent polls (acknowledging what it saw) until an event of the type arrives.
  const awaitEvent = async (type) => {
    for (let i = 0; i < 20; i++) {
      const found = seen.find((e) => e.type === type);
      if (found) {
        seen.splice(seen.indexOf(found), 1);
        return found;
      }
      const res = ok(await member.events.retrieve({ queue_id: queue.queue_id, last_event_id: lastEventId, dont_block: true }));
      for (const e of res.events) {
        assert.ok(e.id > lastEventId, `${step}: event ids increase`);
        lastEventId = e.id;
        seen.push(e);
      }
    }
    assert.fail(`${step}: no ${type} event`);
  };
  step = 'events: a message from another user';
  const sentForQueue = ok(await owner.messages.send({ type: 'stream', to: cfg.channel.name, topic: 'e2e events', content: 'for the **queue**' }));
  const msgEvent = await awaitEvent('message');
  assert.equal(msgEvent.message.id, sentForQueue.id);
  assert.equal(msgEvent.message.content, 'for the **queue**'); // raw Markdown: apply_markdown is off
  assert.equal(msgEvent.message.sender_email, cfg.owner.email);
  step = 'events: user_settings';
  ok(await member.callEndpoint('/settings', 'PATCH', { left_side_userlist: true }));
  const settingEvent = await awaitEvent('user_settings');
  assert.equal(settingEvent.property, 'left_side_userlist');
  assert.equal(settingEvent.value, true);
  step = 'events: delete_message from a topic deletion';
  ok(await owner.callEndpoint(`/streams/${cfg.channel.id}/delete_topic`, 'POST', { topic_name: 'e2e events' }));
  const deletion = await awaitEvent('delete_message');
  assert.equal(deletion.message_id, sentForQueue.id); // one event per message without bulk_message_deletion
  step = 'events: typing';
  // zulip-js JSON-encodes "to" only for two or more users: name the sender too.
  const ownerMe = ok(await owner.users.me.getProfile());
  ok(await owner.typing.send({ to: [me.user_id, ownerMe.user_id], op: 'start' }));
  const typingEvent = await awaitEvent('typing');
  assert.equal(typingEvent.op, 'start');
  assert.equal(typingEvent.sender.email, cfg.owner.email);
  step = 'deregister the queue';
  ok(await member.queues.deregister({ queue_id: queue.queue_id }));
  fails(await member.events.retrieve({ queue_id: queue.queue_id, last_event_id: lastEventId }),
    'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queue.queue_id}`);

  // 1. PATCH /settings (query string, as zulip-js sends PATCH).
  step = 'PATCH /settings';
  const patched = ok(await member.callEndpoint('/settings', 'PATCH', {
    color_scheme: 2, enter_sends: true, emojiset: 'text', dense_mode: true,
  }));
  assert.deepEqual(patched.ignored_parameters_unsupported, ['dense_mode']);
  const state = ok(await member.callEndpoint('/register', 'POST', {}));
  assert.equal(state.user_settings.color_scheme, 2);
  assert.equal(state.user_settings.enter_sends, true);
  assert.equal(state.user_settings.emojiset, 'text');
  step = 'PATCH /settings invalid';
  fails(await member.callEndpoint('/settings', 'PATCH', { color_scheme: 9 }), 'BAD_REQUEST',
    'Invalid color_scheme: Value error, Not in the list of possible values');

  // 2. POST /streams/{stream_id}/delete_topic.
  step = 'send messages';
  for (const content of ['first', 'second']) {
    ok(await member.messages.send({ type: 'stream', to: cfg.channel.name, topic: 'e2e doomed', content }));
  }
  const narrow = [{ operator: 'channel', operand: cfg.channel.id }, { operator: 'topic', operand: 'e2e doomed' }];
  let found = ok(await member.messages.retrieve({ anchor: 'newest', num_before: 100, num_after: 0, narrow }));
  assert.equal(found.messages.length, 2);
  step = 'delete_topic as member';
  fails(await member.callEndpoint(`/streams/${cfg.channel.id}/delete_topic`, 'POST', { topic_name: 'e2e doomed' }),
    'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  step = 'delete_topic';
  const deleted = ok(await owner.callEndpoint(`/streams/${cfg.channel.id}/delete_topic`, 'POST', { topic_name: 'E2E Doomed' }));
  assert.equal(deleted.complete, true);
  found = ok(await member.messages.retrieve({ anchor: 'newest', num_before: 100, num_after: 0, narrow }));
  assert.equal(found.messages.length, 0);

  // 3. DELETE /users/{user_id}.
  step = 'deactivate as member';
  fails(await member.callEndpoint(`/users/${target.id}`, 'DELETE', {}), 'BAD_REQUEST', 'Insufficient permission');
  step = 'deactivate';
  ok(await owner.callEndpoint(`/users/${target.id}`, 'DELETE', { deactivation_notification_comment: 'Thanks for everything' }));
  const gone = ok(await owner.callEndpoint(`/users/${target.id}`, 'GET', {}));
  assert.equal(gone.user.is_active, false);
  step = 'deactivate again';
  fails(await owner.callEndpoint(`/users/${target.id}`, 'DELETE', {}), 'BAD_REQUEST', 'User is deactivated');

  // 4. DELETE /scheduled_messages/{scheduled_message_id}.
  step = 'schedule';
  const sched = ok(await member.callEndpoint('/scheduled_messages', 'POST', {
    type: 'stream', to: String(cfg.channel.id), topic: 'later', content: 'scheduled by zulip-js',
    scheduled_delivery_timestamp: in1h(),
  }));
  let list = ok(await member.callEndpoint('/scheduled_messages', 'GET', {}));
  assert.ok(list.scheduled_messages.some((m) => m.scheduled_message_id === sched.scheduled_message_id));
  step = 'delete scheduled message';
  ok(await member.callEndpoint(`/scheduled_messages/${sched.scheduled_message_id}`, 'DELETE', {}));
  list = ok(await member.callEndpoint('/scheduled_messages', 'GET', {}));
  assert.ok(!list.scheduled_messages.some((m) => m.scheduled_message_id === sched.scheduled_message_id));
  step = 'delete scheduled message again';
  fails(await member.callEndpoint(`/scheduled_messages/${sched.scheduled_message_id}`, 'DELETE', {}),
    'BAD_REQUEST', 'Scheduled message does not exist');

  // 5. DELETE /realm/filters/{filter_id}.
  step = 'add linkifier';
  const added = ok(await owner.callEndpoint('/realm/filters', 'POST', {
    pattern: 'E2E-(?P<n>[0-9]+)', url_template: 'https://e2e.example/{n}',
  }));
  let links = ok(await member.callEndpoint('/realm/linkifiers', 'GET', {}));
  assert.ok(links.linkifiers.some((l) => l.id === added.id));
  step = 'remove linkifier as member';
  fails(await member.callEndpoint(`/realm/filters/${added.id}`, 'DELETE', {}),
    'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  step = 'remove linkifier';
  ok(await owner.callEndpoint(`/realm/filters/${added.id}`, 'DELETE', {}));
  links = ok(await member.callEndpoint('/realm/linkifiers', 'GET', {}));
  assert.ok(!links.linkifiers.some((l) => l.id === added.id));
  step = 'remove linkifier again';
  fails(await owner.callEndpoint(`/realm/filters/${added.id}`, 'DELETE', {}), 'BAD_REQUEST', 'Linkifier not found.');

  // 6. GET /reminders (with POST and DELETE /reminders/{id}).
  step = 'create reminder';
  const rem = ok(await member.callEndpoint('/reminders', 'POST', {
    message_id: cfg.reminderMessageID, scheduled_delivery_timestamp: in1h(), note: 'from zulip-js',
  }));
  step = 'list reminders';
  const reminders = ok(await member.callEndpoint('/reminders', 'GET', {}));
  const mine = reminders.reminders.find((r) => r.reminder_id === rem.reminder_id);
  assert.ok(mine);
  assert.equal(mine.type, 'private');
  assert.equal(mine.reminder_target_message_id, cfg.reminderMessageID);
  assert.match(mine.content, /from zulip-js/);
  step = 'delete reminder';
  ok(await member.callEndpoint(`/reminders/${rem.reminder_id}`, 'DELETE', {}));
  fails(await member.callEndpoint(`/reminders/${rem.reminder_id}`, 'DELETE', {}), 'BAD_REQUEST', 'Reminder does not exist');

  // Per-user message flags: mark a message read and starred, read them back.
  step = 'flags: send';
  const sent = ok(await member.messages.send({ type: 'stream', to: cfg.channel.name, topic: 'e2e flags', content: 'flag me' }));
  step = 'flags: unread for an API client';
  let got = ok(await member.messages.getById({ message_id: sent.id }));
  assert.deepEqual(got.message.flags, []);
  step = 'flags: add read';
  ok(await member.messages.flags.add({ messages: [sent.id], flag: 'read' }));
  step = 'flags: add starred';
  ok(await member.messages.flags.add({ messages: [sent.id], flag: 'starred' }));
  step = 'flags: read back';
  got = ok(await member.messages.getById({ message_id: sent.id }));
  assert.deepEqual(got.message.flags, ['read', 'starred']);
  step = 'flags: is:starred';
  const starred = ok(await member.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0,
    narrow: [{ operator: 'is', operand: 'starred' }] }));
  assert.ok(starred.messages.some((m) => m.id === sent.id && m.flags.includes('starred')));
  step = 'flags: remove starred';
  ok(await member.messages.flags.remove({ messages: [sent.id], flag: 'starred' }));
  got = ok(await member.messages.getById({ message_id: sent.id }));
  assert.deepEqual(got.message.flags, ['read']);
  step = 'flags: not editable';
  fails(await member.messages.flags.add({ messages: [sent.id], flag: 'mentioned' }), 'BAD_REQUEST', "Flag not editable: 'mentioned'");

  // Reactions: add one by name, read it back, remove it.
  step = 'reactions: add';
  ok(await member.reactions.add({ message_id: sent.id, emoji_name: 'octopus' }));
  step = 'reactions: add again';
  fails(await member.reactions.add({ message_id: sent.id, emoji_name: 'octopus' }), 'REACTION_ALREADY_EXISTS', 'Reaction already exists.');
  step = 'reactions: read back';
  got = ok(await owner.messages.getById({ message_id: sent.id }));
  assert.deepEqual(got.message.reactions.map((r) => [r.emoji_name, r.emoji_code, r.reaction_type]),
    [['octopus', '1f419', 'unicode_emoji']]);
  step = 'reactions: remove';
  ok(await member.reactions.remove({ message_id: sent.id, emoji_name: 'octopus' }));
  fails(await member.reactions.remove({ message_id: sent.id, emoji_name: 'octopus' }), 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
  got = ok(await owner.messages.getById({ message_id: sent.id }));
  assert.deepEqual(got.message.reactions, []);

  // Editing: the sender changes the content, reads it and its history back;
  // another user may not.
  step = 'edit: send';
  const draft = ok(await member.messages.send({ type: 'stream', to: cfg.channel.name, topic: 'e2e edits', content: 'first draft' }));
  step = 'edit: content';
  ok(await member.messages.update({ message_id: draft.id, content: 'second draft' }));
  step = 'edit: read back';
  got = ok(await owner.messages.getById({ message_id: draft.id }));
  assert.equal(got.message.content, '<p>second draft</p>');
  assert.equal(typeof got.message.last_edit_timestamp, 'number');
  step = 'edit: history';
  const history = ok(await owner.messages.getHistoryById({ message_id: draft.id }));
  assert.deepEqual(history.message_history.map((h) => h.content), ['first draft', 'second draft']);
  step = 'edit: by another user';
  fails(await owner.messages.update({ message_id: draft.id, content: 'hijacked' }), 'BAD_REQUEST',
    "You don't have permission to edit this message");

  // Moving: the whole topic to a new name, read back by narrow; one message
  // alone may not be moved to a topic of a direct message.
  step = 'move: send';
  const moveIds = [];
  for (const content of ['move one', 'move two']) {
    moveIds.push(ok(await member.messages.send({ type: 'stream', to: cfg.channel.name, topic: 'e2e move me', content })).id);
  }
  step = 'move: change_all';
  ok(await member.messages.update({ message_id: moveIds[1], topic: 'e2e moved', propagate_mode: 'change_all',
    send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
  step = 'move: read back';
  const topicNarrow = (topic) => [{ operator: 'channel', operand: cfg.channel.id }, { operator: 'topic', operand: topic }];
  found = ok(await member.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0, narrow: topicNarrow('e2e moved') }));
  assert.deepEqual(found.messages.map((m) => [m.id, m.subject]), [[moveIds[0], 'e2e moved'], [moveIds[1], 'e2e moved']]);
  found = ok(await member.messages.retrieve({ anchor: 'newest', num_before: 10, num_after: 0, narrow: topicNarrow('e2e move me') }));
  assert.equal(found.messages.length, 0);
  const topics = ok(await member.streams.topics.retrieve({ stream_id: cfg.channel.id }));
  assert.ok(topics.topics.some((t) => t.name === 'e2e moved' && t.max_id === moveIds[1]));
  assert.ok(!topics.topics.some((t) => t.name === 'e2e move me'));
  step = 'move: history';
  const moved = ok(await member.messages.getHistoryById({ message_id: moveIds[0] }));
  assert.deepEqual(moved.message_history.map((h) => h.topic), ['e2e move me', 'e2e moved']);
  step = 'move: bad propagate_mode';
  fails(await member.messages.update({ message_id: moveIds[0], topic: 'elsewhere', propagate_mode: 'change_some' }),
    'BAD_REQUEST', 'Invalid propagate_mode');

  // Subscription properties: colour and muting, read back from the
  // subscription list; an unknown property is refused.
  const setProps = (data) => member.callEndpoint('/users/me/subscriptions/properties', 'POST',
    { subscription_data: JSON.stringify(data) });
  const mySub = async () => ok(await member.streams.subscriptions.retrieve()).subscriptions
    .find((s) => s.stream_id === cfg.channel.id);
  step = 'subscription properties: set';
  ok(await setProps([{ stream_id: cfg.channel.id, property: 'color', value: '#abcdef' },
    { stream_id: cfg.channel.id, property: 'is_muted', value: true }]));
  step = 'subscription properties: read back';
  let sub = await mySub();
  assert.equal(sub.color, '#abcdef');
  assert.equal(sub.is_muted, true);
  assert.equal(sub.in_home_view, false);
  step = 'subscription properties: unknown';
  fails(await setProps([{ stream_id: cfg.channel.id, property: 'sparkle', value: true }]), 'BAD_REQUEST',
    'Unknown subscription property: sparkle');
  step = 'subscription properties: unmute';
  ok(await setProps([{ stream_id: cfg.channel.id, property: 'in_home_view', value: true }]));
  sub = await mySub();
  assert.equal(sub.is_muted, false);
  assert.equal(sub.color, '#abcdef');

  // Presence: a report, then the realm's presence in the legacy format.
  step = 'presence: report';
  const pres = ok(await member.callEndpoint('/users/me/presence', 'POST', { status: 'active', slim_presence: 'true' }));
  assert.equal(typeof pres.server_timestamp, 'number');
  assert.equal(typeof pres.presence_last_update_id, 'number');
  step = 'presence: realm';
  const realmPresence = ok(await owner.callEndpoint('/realm/presence', 'GET', {}));
  assert.equal(typeof realmPresence.presences, 'object');

  // 7. Unknown routes answer JSON, so zulip-js reports them as Zulip errors.
  step = 'unknown route';
  fails(await member.callEndpoint('/no-such-endpoint', 'GET', {}), 'BAD_REQUEST', 'Not Found');

  console.log('zulip-js e2e: all steps passed');
} catch (err) {
  console.error(`zulip-js e2e failed at "${step}":`, err.message);
  process.exit(1);
}
