-- 0023_flags_without_foreign_key.sql: a message's flag rows still go with
-- it, deleted by a trigger instead of a foreign key.
--
-- The foreign key checked every inserted flag row by reading its message
-- through messages_pkey. Under serializable isolation that read
-- predicate-locks the index page it finds the message on, and a send's
-- message is new: its page is the index's last, the one every concurrent
-- send inserts into. Every two concurrent sends then each read what the
-- other wrote, and PostgreSQL cancelled one of each such pair ("could not
-- serialize access ... pivot"). The store writes a flag row only for a
-- message it has just created or read in the same transaction, so the
-- check guarded nothing the store can get wrong; the cascade is kept, once
-- per deleting statement. Its DELETE takes the deleted ids as one array,
-- which PostgreSQL reads through user_message_flags_message whatever their
-- number: a join with the transition table gets a plan cached for the
-- number of rows of the first deletion in the session, and after a large
-- one it read every flag row to delete one message's.
ALTER TABLE user_message_flags DROP CONSTRAINT IF EXISTS user_message_flags_message_id_fkey;

CREATE OR REPLACE FUNCTION messages_delete_flags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM user_message_flags WHERE message_id = ANY (ARRAY(SELECT id FROM deleted));
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS messages_delete_flags ON messages;
CREATE TRIGGER messages_delete_flags AFTER DELETE ON messages
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION messages_delete_flags();
