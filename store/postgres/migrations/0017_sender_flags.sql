-- 0017_sender_flags.sql: a user's own message is read for them without a row (the
-- sender's read is derived, as a read mark's is), so the rows senders were
-- given at send that hold only that (read and the message's default flags,
-- on a message they received through the conversation or a subscription
-- covering it) go. One statement: the migration is one transaction, and it
-- reads each sender's rows through the message's primary key.
DELETE FROM user_message_flags
WHERE EXISTS (SELECT 1 FROM messages m WHERE m.id = user_message_flags.message_id
    AND m.sender_id = user_message_flags.user_id
    AND user_message_flags.flags = (m.default_flags | 1)
    AND CASE WHEN m.type = 'private' THEN
        EXISTS (SELECT 1 FROM recipient_members rm WHERE rm.recipient_id = m.recipient_id
            AND rm.user_id = user_message_flags.user_id)
    ELSE
        EXISTS (SELECT 1 FROM subscriptions s WHERE s.stream_id = m.stream_id
            AND s.user_id = user_message_flags.user_id AND s.active AND s.since_message_id <= m.id)
    END);
