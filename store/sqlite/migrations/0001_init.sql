-- 0001_init.sql: chatcore's initial schema.
--
-- Conventions: every table is STRICT; times are INTEGER unix seconds (NULL for
-- the zero time); booleans are INTEGER 0/1; a zero id that means "none" is
-- stored as NULL. Folded keys (*_key) are computed in Go with chatcore.FoldKey,
-- because SQLite's lower() and NOCASE fold only ASCII.

CREATE TABLE realms (
    id                       INTEGER PRIMARY KEY,
    string_id                TEXT    NOT NULL UNIQUE,
    name                     TEXT    NOT NULL,
    name_changes_disabled    INTEGER NOT NULL CHECK (name_changes_disabled IN (0, 1)),
    email_changes_disabled   INTEGER NOT NULL CHECK (email_changes_disabled IN (0, 1)),
    require_unique_names     INTEGER NOT NULL CHECK (require_unique_names IN (0, 1)),
    empty_topic_display_name TEXT    NOT NULL,
    date_created             INTEGER
) STRICT;

-- users holds humans and bots. The columns after avatar_source are the
-- personal settings, one column per chatcore.SettingNames() entry, named as
-- on the wire; Open checks that none is missing.
CREATE TABLE users (
    id              INTEGER PRIMARY KEY,
    realm_id        INTEGER NOT NULL REFERENCES realms (id),
    email           TEXT    NOT NULL,
    email_key       TEXT    NOT NULL,
    full_name       TEXT    NOT NULL,
    full_name_key   TEXT    NOT NULL,
    role            INTEGER NOT NULL,
    is_active       INTEGER NOT NULL CHECK (is_active IN (0, 1)),
    is_bot          INTEGER NOT NULL CHECK (is_bot IN (0, 1)),
    bot_type        INTEGER NOT NULL,
    bot_owner_id    INTEGER,
    api_key_hash    TEXT,
    password_hash   TEXT    NOT NULL,
    avatar_source   TEXT    NOT NULL,
    date_joined     INTEGER,
    twenty_four_hour_time INTEGER NOT NULL CHECK (twenty_four_hour_time IN (0, 1)),
    web_mark_read_on_scroll_policy INTEGER NOT NULL,
    web_channel_default_view INTEGER NOT NULL,
    starred_message_counts INTEGER NOT NULL CHECK (starred_message_counts IN (0, 1)),
    receives_typing_notifications INTEGER NOT NULL CHECK (receives_typing_notifications IN (0, 1)),
    web_suggest_update_timezone INTEGER NOT NULL CHECK (web_suggest_update_timezone IN (0, 1)),
    fluid_layout_width INTEGER NOT NULL CHECK (fluid_layout_width IN (0, 1)),
    high_contrast_mode INTEGER NOT NULL CHECK (high_contrast_mode IN (0, 1)),
    web_font_size_px INTEGER NOT NULL,
    web_line_height_percent INTEGER NOT NULL,
    color_scheme INTEGER NOT NULL,
    enable_drafts_synchronization INTEGER NOT NULL CHECK (enable_drafts_synchronization IN (0, 1)),
    translate_emoticons INTEGER NOT NULL CHECK (translate_emoticons IN (0, 1)),
    display_emoji_reaction_users INTEGER NOT NULL CHECK (display_emoji_reaction_users IN (0, 1)),
    default_language TEXT NOT NULL,
    web_home_view TEXT NOT NULL,
    web_escape_navigates_to_home_view INTEGER NOT NULL CHECK (web_escape_navigates_to_home_view IN (0, 1)),
    left_side_userlist INTEGER NOT NULL CHECK (left_side_userlist IN (0, 1)),
    emojiset TEXT NOT NULL,
    demote_inactive_streams INTEGER NOT NULL,
    user_list_style INTEGER NOT NULL,
    web_animate_image_previews TEXT NOT NULL,
    web_stream_unreads_count_display_policy INTEGER NOT NULL,
    hide_ai_features INTEGER NOT NULL CHECK (hide_ai_features IN (0, 1)),
    web_inbox_show_channel_folders INTEGER NOT NULL CHECK (web_inbox_show_channel_folders IN (0, 1)),
    web_left_sidebar_show_channel_folders INTEGER NOT NULL CHECK (web_left_sidebar_show_channel_folders IN (0, 1)),
    web_left_sidebar_unreads_count_summary INTEGER NOT NULL CHECK (web_left_sidebar_unreads_count_summary IN (0, 1)),
    timezone TEXT NOT NULL,
    enable_stream_desktop_notifications INTEGER NOT NULL CHECK (enable_stream_desktop_notifications IN (0, 1)),
    enable_stream_email_notifications INTEGER NOT NULL CHECK (enable_stream_email_notifications IN (0, 1)),
    enable_stream_push_notifications INTEGER NOT NULL CHECK (enable_stream_push_notifications IN (0, 1)),
    enable_stream_audible_notifications INTEGER NOT NULL CHECK (enable_stream_audible_notifications IN (0, 1)),
    notification_sound TEXT NOT NULL,
    enable_desktop_notifications INTEGER NOT NULL CHECK (enable_desktop_notifications IN (0, 1)),
    enable_sounds INTEGER NOT NULL CHECK (enable_sounds IN (0, 1)),
    email_notifications_batching_period_seconds INTEGER NOT NULL,
    enable_offline_email_notifications INTEGER NOT NULL CHECK (enable_offline_email_notifications IN (0, 1)),
    enable_offline_push_notifications INTEGER NOT NULL CHECK (enable_offline_push_notifications IN (0, 1)),
    enable_online_push_notifications INTEGER NOT NULL CHECK (enable_online_push_notifications IN (0, 1)),
    enable_followed_topic_desktop_notifications INTEGER NOT NULL CHECK (enable_followed_topic_desktop_notifications IN (0, 1)),
    enable_followed_topic_email_notifications INTEGER NOT NULL CHECK (enable_followed_topic_email_notifications IN (0, 1)),
    enable_followed_topic_push_notifications INTEGER NOT NULL CHECK (enable_followed_topic_push_notifications IN (0, 1)),
    enable_followed_topic_audible_notifications INTEGER NOT NULL CHECK (enable_followed_topic_audible_notifications IN (0, 1)),
    enable_digest_emails INTEGER NOT NULL CHECK (enable_digest_emails IN (0, 1)),
    enable_marketing_emails INTEGER NOT NULL CHECK (enable_marketing_emails IN (0, 1)),
    enable_login_emails INTEGER NOT NULL CHECK (enable_login_emails IN (0, 1)),
    message_content_in_email_notifications INTEGER NOT NULL CHECK (message_content_in_email_notifications IN (0, 1)),
    pm_content_in_desktop_notifications INTEGER NOT NULL CHECK (pm_content_in_desktop_notifications IN (0, 1)),
    wildcard_mentions_notify INTEGER NOT NULL CHECK (wildcard_mentions_notify IN (0, 1)),
    enable_followed_topic_wildcard_mentions_notify INTEGER NOT NULL CHECK (enable_followed_topic_wildcard_mentions_notify IN (0, 1)),
    desktop_icon_count_display INTEGER NOT NULL,
    realm_name_in_email_notifications_policy INTEGER NOT NULL,
    automatically_follow_topics_policy INTEGER NOT NULL,
    automatically_unmute_topics_in_muted_streams_policy INTEGER NOT NULL,
    automatically_follow_topics_where_mentioned INTEGER NOT NULL CHECK (automatically_follow_topics_where_mentioned IN (0, 1)),
    resolved_topic_notice_auto_read_policy TEXT NOT NULL,
    presence_enabled INTEGER NOT NULL CHECK (presence_enabled IN (0, 1)),
    enter_sends INTEGER NOT NULL CHECK (enter_sends IN (0, 1)),
    send_private_typing_notifications INTEGER NOT NULL CHECK (send_private_typing_notifications IN (0, 1)),
    send_stream_typing_notifications INTEGER NOT NULL CHECK (send_stream_typing_notifications IN (0, 1)),
    send_read_receipts INTEGER NOT NULL CHECK (send_read_receipts IN (0, 1)),
    allow_private_data_export INTEGER NOT NULL CHECK (allow_private_data_export IN (0, 1)),
    email_address_visibility INTEGER NOT NULL,
    web_navigate_to_sent_message INTEGER NOT NULL CHECK (web_navigate_to_sent_message IN (0, 1))
) STRICT;
CREATE UNIQUE INDEX users_realm_email ON users (realm_id, email_key);
CREATE UNIQUE INDEX users_api_key ON users (api_key_hash) WHERE api_key_hash IS NOT NULL;
CREATE INDEX users_bot_owner ON users (bot_owner_id) WHERE bot_owner_id IS NOT NULL;
CREATE INDEX users_realm_full_name ON users (realm_id, full_name_key);
CREATE INDEX users_realm ON users (realm_id);

-- user_setting_edits records which settings a user changed themselves
-- (skip_if_already_edited of bulk updates).
CREATE TABLE user_setting_edits (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    setting TEXT    NOT NULL,
    PRIMARY KEY (user_id, setting)
) STRICT, WITHOUT ROWID;

CREATE TABLE bot_services (
    id        INTEGER PRIMARY KEY,
    bot_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name      TEXT    NOT NULL,
    base_url  TEXT    NOT NULL,
    token     TEXT    NOT NULL,
    interface TEXT    NOT NULL
) STRICT;
CREATE INDEX bot_services_bot ON bot_services (bot_id, id);

CREATE TABLE user_groups (
    id          INTEGER PRIMARY KEY,
    realm_id    INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    description TEXT    NOT NULL,
    UNIQUE (realm_id, name)
) STRICT;

CREATE TABLE group_members (
    group_id INTEGER NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (group_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX group_members_user ON group_members (user_id, group_id);

-- group_subgroups has no foreign key on subgroup_id: a group may name
-- subgroups created later in the same transaction.
CREATE TABLE group_subgroups (
    group_id    INTEGER NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    subgroup_id INTEGER NOT NULL,
    PRIMARY KEY (group_id, subgroup_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX group_subgroups_sub ON group_subgroups (subgroup_id, group_id);

-- recipients is the id space of message recipients: one row per channel
-- (direct_key NULL) and one per direct conversation (direct_key: the sorted
-- participant ids joined by commas, with the participants in
-- recipient_members).
CREATE TABLE recipients (
    id         INTEGER PRIMARY KEY,
    realm_id   INTEGER NOT NULL,
    direct_key TEXT
) STRICT;
CREATE UNIQUE INDEX recipients_direct ON recipients (realm_id, direct_key) WHERE direct_key IS NOT NULL;

CREATE TABLE recipient_members (
    recipient_id INTEGER NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL,
    PRIMARY KEY (recipient_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX recipient_members_user ON recipient_members (user_id, recipient_id);

CREATE TABLE streams (
    id                            INTEGER PRIMARY KEY,
    realm_id                      INTEGER NOT NULL,
    recipient_id                  INTEGER NOT NULL UNIQUE REFERENCES recipients (id),
    name                          TEXT    NOT NULL,
    name_key                      TEXT    NOT NULL,
    description                   TEXT    NOT NULL,
    invite_only                   INTEGER NOT NULL CHECK (invite_only IN (0, 1)),
    history_public_to_subscribers INTEGER NOT NULL CHECK (history_public_to_subscribers IN (0, 1)),
    is_archived                   INTEGER NOT NULL CHECK (is_archived IN (0, 1)),
    first_message_id              INTEGER,
    date_created                  INTEGER,
    UNIQUE (realm_id, name_key)
) STRICT;

CREATE TABLE subscriptions (
    stream_id                INTEGER NOT NULL,
    user_id                  INTEGER NOT NULL,
    active                   INTEGER NOT NULL CHECK (active IN (0, 1)),
    first_visible_message_id INTEGER,
    PRIMARY KEY (stream_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX subscriptions_user ON subscriptions (user_id, stream_id);

-- messages never reuse an id (AUTOINCREMENT). direct_members is the JSON array
-- of a direct message's participants (NULL for channel messages). stream_id is
-- 0 for direct messages so that the topic index covers every row. There is
-- deliberately no realm index: every query narrows by channel, topic,
-- recipient or sender first (realm_id is checked on the rows found), and each
-- index slows every insert and every deleted row.
CREATE TABLE messages (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id         INTEGER NOT NULL,
    sender_id        INTEGER NOT NULL,
    type             TEXT    NOT NULL,
    recipient_id     INTEGER NOT NULL,
    stream_id        INTEGER NOT NULL,
    topic            TEXT    NOT NULL,
    topic_key        TEXT    NOT NULL,
    direct_members   TEXT,
    content          TEXT    NOT NULL,
    rendered_content TEXT    NOT NULL,
    client           TEXT    NOT NULL,
    sent_at          INTEGER,
    last_edited_at   INTEGER,
    last_moved_at    INTEGER,
    is_me_message    INTEGER NOT NULL CHECK (is_me_message IN (0, 1))
) STRICT;
CREATE INDEX messages_stream_topic ON messages (stream_id, topic_key, id);
CREATE INDEX messages_stream ON messages (stream_id, id);
CREATE INDEX messages_recipient ON messages (recipient_id, id);
CREATE INDEX messages_sender ON messages (sender_id, id);

-- The children of a message go with it (ON DELETE CASCADE). seq keeps the
-- order in which they were given.
CREATE TABLE reactions (
    message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    emoji_name    TEXT    NOT NULL,
    emoji_code    TEXT    NOT NULL,
    reaction_type TEXT    NOT NULL,
    PRIMARY KEY (message_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE edit_history (
    message_id            INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    seq                   INTEGER NOT NULL,
    user_id               INTEGER NOT NULL,
    timestamp             INTEGER,
    prev_content          TEXT    NOT NULL,
    prev_rendered_content TEXT    NOT NULL,
    prev_stream_id        INTEGER,
    stream_id             INTEGER,
    prev_topic            TEXT,
    topic                 TEXT,
    PRIMARY KEY (message_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE submessages (
    id         INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    sender_id  INTEGER NOT NULL,
    msg_type   TEXT    NOT NULL,
    content    TEXT    NOT NULL
) STRICT;
CREATE INDEX submessages_message ON submessages (message_id, id);

-- scheduled_messages holds both kinds (1 send later, 2 reminder) in one id
-- space that never reuses an id.
CREATE TABLE scheduled_messages (
    id                          INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id                    INTEGER NOT NULL,
    sender_id                   INTEGER NOT NULL,
    kind                        INTEGER NOT NULL,
    type                        TEXT    NOT NULL,
    stream_id                   INTEGER,
    topic                       TEXT    NOT NULL,
    direct_members              TEXT,
    content                     TEXT    NOT NULL,
    rendered_content            TEXT    NOT NULL,
    deliver_at                  INTEGER,
    delivered                   INTEGER NOT NULL CHECK (delivered IN (0, 1)),
    failed                      INTEGER NOT NULL CHECK (failed IN (0, 1)),
    failure_message             TEXT    NOT NULL,
    delivered_message_id        INTEGER,
    reminder_target_message_id  INTEGER,
    reminder_note               TEXT    NOT NULL
) STRICT;
CREATE INDEX scheduled_sender ON scheduled_messages (sender_id, kind, delivered, deliver_at, id);
CREATE INDEX scheduled_due ON scheduled_messages (delivered, deliver_at, id);
CREATE INDEX scheduled_realm ON scheduled_messages (realm_id, deliver_at, id);

CREATE TABLE linkifiers (
    id           INTEGER PRIMARY KEY,
    realm_id     INTEGER NOT NULL,
    pattern      TEXT    NOT NULL,
    url_template TEXT    NOT NULL,
    ord          INTEGER NOT NULL,
    UNIQUE (realm_id, pattern)
) STRICT;
CREATE INDEX linkifiers_realm_order ON linkifiers (realm_id, ord, id);

CREATE TABLE drafts (
    id        INTEGER PRIMARY KEY,
    user_id   INTEGER NOT NULL,
    type      TEXT    NOT NULL,
    stream_id INTEGER,
    topic     TEXT    NOT NULL,
    to_users  TEXT,
    content   TEXT    NOT NULL,
    last_edit INTEGER
) STRICT;
CREATE INDEX drafts_user ON drafts (user_id, id);

CREATE TABLE email_changes (
    key        TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL,
    realm_id   INTEGER NOT NULL,
    old_email  TEXT    NOT NULL,
    new_email  TEXT    NOT NULL,
    created_at INTEGER
) STRICT;
CREATE INDEX email_changes_user ON email_changes (user_id);
