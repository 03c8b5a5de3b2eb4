package httpadapter

import "github.com/chatcore/chatcore"

// routes lists every endpoint, each with its wrapped handler.
func (h *handler) routes() []route {
	routes := []route{
		{pattern: "GET /api/v1/server_settings", public: true, fn: h.serverSettings},
		{pattern: "POST /api/v1/fetch_api_key", public: true, fn: h.fetchAPIKey},
		{pattern: "GET " + defaultAvatarPath, public: true, untyped: true, raw: h.defaultAvatar},
		{pattern: "GET " + realmIconPath, public: true, untyped: true, raw: h.realmIcon},
		{pattern: "GET " + emojiDataPath, public: true, untyped: true, raw: h.emojiData},
		{pattern: "GET /avatar/{user_id_or_email}", untyped: true, raw: h.avatar},
		{pattern: "GET /avatar/{user_id_or_email}/medium", untyped: true, raw: h.avatar},
		{pattern: "POST /api/v1/register", fn: h.register},
		{pattern: "GET /api/v1/events", fn: h.getEvents},
		{pattern: "DELETE /api/v1/events", fn: h.deleteEvents},
		{pattern: "POST /api/v1/typing", fn: h.typing},

		{pattern: "PATCH /api/v1/settings", access: chatcore.AccessHuman, fn: h.updateSettings},
		{pattern: "PATCH /api/v1/settings/display", access: chatcore.AccessHuman, fn: h.updateSettings},
		{pattern: "PATCH /api/v1/settings/notifications", access: chatcore.AccessHuman, fn: h.updateSettings},
		{pattern: "GET /accounts/confirm_new_email/{key}", public: true, fn: h.confirmEmailChange},

		{pattern: "GET /api/v1/streams", fn: h.channels},
		{pattern: "GET /api/v1/streams/{stream_id}", ids: []string{"stream_id"}, fn: h.channel},
		{pattern: "GET /api/v1/users/me/subscriptions", fn: h.subscriptions},
		{pattern: "POST /api/v1/users/me/subscriptions", fn: h.subscribe},
		{pattern: "DELETE /api/v1/users/me/subscriptions", fn: h.unsubscribe},
		{pattern: "POST /api/v1/users/me/subscriptions/properties", fn: h.subscriptionProperties},
		{pattern: "GET /api/v1/users/me/{stream_id}/topics", ids: []string{"stream_id"}, fn: h.channelTopics},
		{pattern: "POST /api/v1/streams/{stream_id}/delete_topic", access: chatcore.AccessAdmin, ids: []string{"stream_id"}, fn: h.deleteTopic},

		{pattern: "POST /api/v1/messages", webhooks: true, fn: h.sendMessage},
		{pattern: "GET /api/v1/messages", fn: h.messages},
		{pattern: "GET /api/v1/messages/matches_narrow", fn: h.messagesMatchesNarrow},
		{pattern: "GET /api/v1/messages/{message_id}", ids: []string{"message_id"}, fn: h.message},
		{pattern: "PATCH /api/v1/messages/{message_id}", ids: []string{"message_id"}, fn: h.updateMessage},
		{pattern: "DELETE /api/v1/messages/{message_id}", ids: []string{"message_id"}, fn: h.deleteMessage},
		{pattern: "GET /api/v1/messages/{message_id}/history", ids: []string{"message_id"}, fn: h.messageHistory},
		{pattern: "POST /api/v1/messages/flags", fn: h.updateMessageFlags},
		{pattern: "POST /api/v1/messages/flags/narrow", fn: h.updateMessageFlagsForNarrow},
		{pattern: "POST /api/v1/messages/{message_id}/reactions", ids: []string{"message_id"}, fn: h.addReaction},
		{pattern: "DELETE /api/v1/messages/{message_id}/reactions", ids: []string{"message_id"}, fn: h.removeReaction},
		{pattern: "GET /api/v1/messages/{message_id}/read_receipts", ids: []string{"message_id"}, fn: h.readReceipts},
		{pattern: "POST /api/v1/submessage", fn: h.addSubmessage},

		{pattern: "GET /api/v1/drafts", fn: h.listDrafts},
		{pattern: "POST /api/v1/drafts", fn: h.createDrafts},
		{pattern: "PATCH /api/v1/drafts/{draft_id}", ids: []string{"draft_id"}, fn: h.editDraft},
		{pattern: "DELETE /api/v1/drafts/{draft_id}", ids: []string{"draft_id"}, fn: h.deleteDraft},

		{pattern: "GET /api/v1/users/me", fn: h.me},
		{pattern: "POST /api/v1/users/me/presence", access: chatcore.AccessHuman, fn: h.updatePresence},
		{pattern: "GET /api/v1/users/{user_id_or_email}/presence", fn: h.userPresence},
		{pattern: "GET /api/v1/realm/presence", fn: h.realmPresence},
		{pattern: "GET /api/v1/users", fn: h.users},
		{pattern: "GET /api/v1/users/{user_id}", ids: []string{"user_id"}, fn: h.user},
		{pattern: "GET /api/v1/users/{email}", nameOf: "user_id", fn: h.userByEmail},
		{pattern: "DELETE /api/v1/users/{user_id}", ids: []string{"user_id"}, fn: h.deactivateUser},

		{pattern: "GET /api/v1/scheduled_messages", fn: h.scheduledMessages},
		{pattern: "POST /api/v1/scheduled_messages", fn: h.createScheduledMessage},
		{pattern: "DELETE /api/v1/scheduled_messages/{scheduled_message_id}", ids: []string{"scheduled_message_id"}, fn: h.deleteScheduledMessage},
		{pattern: "PATCH /api/v1/scheduled_messages/{scheduled_message_id}", ids: []string{"scheduled_message_id"}, fn: h.editScheduledMessage},

		{pattern: "GET /api/v1/reminders", fn: h.reminders},
		{pattern: "POST /api/v1/reminders", fn: h.createReminder},
		{pattern: "DELETE /api/v1/reminders/{reminder_id}", ids: []string{"reminder_id"}, fn: h.deleteReminder},

		{pattern: "GET /api/v1/realm/linkifiers", fn: h.linkifiers},
		{pattern: "PATCH /api/v1/realm/linkifiers", access: chatcore.AccessAdmin, fn: h.reorderLinkifiers},
		{pattern: "POST /api/v1/realm/filters", access: chatcore.AccessAdmin, fn: h.addLinkifier},
		{pattern: "PATCH /api/v1/realm/filters/{filter_id}", access: chatcore.AccessAdmin, ids: []string{"filter_id"}, fn: h.updateLinkifier},
		{pattern: "DELETE /api/v1/realm/filters/{filter_id}", access: chatcore.AccessAdmin, ids: []string{"filter_id"}, untyped: true, fn: h.removeLinkifier},
	}
	routes = append(routes, h.personalRoutes()...)
	routes = append(routes, h.userGroupRoutes()...)
	routes = append(routes, h.channelAdminRoutes()...)
	routes = append(routes, route{pattern: "PATCH /api/v1/realm", access: chatcore.AccessAdmin, fn: h.updateRealm},
		route{pattern: "PATCH /api/v1/realm/user_settings_defaults", access: chatcore.AccessAdmin, fn: h.updateUserDefaults},
		route{pattern: "POST /api/v1/realm/deactivate", fn: h.deactivateRealm})
	routes = append(routes, h.uploadRoutes()...)
	routes = append(routes, h.realmEmojiRoutes()...)
	routes = append(routes, h.avatarRoutes()...)
	routes = append(routes, h.realmIconRoutes()...)
	routes = append(routes, h.peopleRoutes()...)
	for i := range routes {
		routes[i].handler = h.wrap(routes[i])
	}
	return routes
}
