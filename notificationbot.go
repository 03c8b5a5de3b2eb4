package chatcore

// The notification bot: the per-realm bot that sends what the server itself
// says (reminders, the notices of moved topics, failed scheduled messages).

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
)

// NotificationBotName is the full name of the per-realm bot that sends the
// server's own messages.
const NotificationBotName = "Notification Bot"

// NotificationBotEmail returns the e-mail of the realm's notification bot,
// which [Service.NotificationBot] creates the first time the realm needs it.
// The domain is reserved (.invalid), so it never clashes with a
// real address.
func NotificationBotEmail(realmStringID string) string {
	return "notification-bot@" + realmStringID + ".chatcore.invalid"
}

// NotificationBot returns the realm's notification bot (see
// [NotificationBotEmail]), creating it inside tx when it does not exist yet.
// Errors come from the store.
func (s *Service) NotificationBot(ctx context.Context, tx Tx, realmID RealmID) (*User, error) {
	realm, err := tx.Realm(ctx, realmID)
	if err != nil {
		return nil, err
	}
	email := NotificationBotEmail(realm.StringID)
	bot, err := tx.UserByEmail(ctx, realmID, email)
	if err == nil {
		return bot, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	bot = &User{
		RealmID:      realmID,
		Email:        email,
		FullName:     NotificationBotName,
		Role:         RoleMember,
		IsActive:     true,
		IsBot:        true,
		BotType:      BotTypeGeneric,
		APIKeyHash:   HashAPIKey(rand.Text()), // a key nobody knows: the bot never logs in
		AvatarSource: "G",
		DateJoined:   s.clock.Now().UTC(),
		Settings:     DefaultSettings(),
	}
	if err := tx.CreateUser(ctx, bot); err != nil {
		return nil, fmt.Errorf("creating the notification bot: %w", err)
	}
	return bot, nil
}
