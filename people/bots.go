package people

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
)

// Zulip's outgoing-webhook interface types, by their wire numbers.
const (
	interfaceGeneric = 1
	interfaceSlack   = 2
)

// maxURLLength bounds a payload URL.
const maxURLLength = 2048

// interfaceName maps an interface type to the name a BotService stores.
func interfaceName(t int) (string, bool) {
	switch t {
	case interfaceGeneric:
		return "generic", true
	case interfaceSlack:
		return "slack", true
	}
	return "", false
}

// interfaceType maps a stored interface name back to its wire number.
func interfaceType(name string) int {
	if name == "slack" {
		return interfaceSlack
	}
	return interfaceGeneric
}

// jsonString reads a parameter Zulip declares Json[str]: a JSON string
// literal; a bare value (what some clients send) is taken as it is.
func jsonString(raw string) string {
	var s string
	if strings.HasPrefix(raw, `"`) && json.Unmarshal([]byte(raw), &s) == nil {
		return s
	}
	return raw
}

// checkPayloadURL is Zulip's check_url for a webhook's URL.
func checkPayloadURL(name, raw string) (string, error) {
	u, err := url.Parse(raw)
	if len(raw) > maxURLLength || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", chatcore.BadRequestf("%s is not a URL", name)
	}
	return raw, nil
}

// requireMemberOrAdmin is Zulip's @require_member_or_admin.
func requireMemberOrAdmin(u *chatcore.User) error {
	if u.Role == chatcore.RoleGuest {
		return chatcore.BadRequest("Not allowed for guest users")
	}
	return chatcore.Authorize(u, chatcore.AccessHuman)
}

// allowedBotTypes is Zulip's allowed_bot_types: every type for the members
// of the realm's can_create_bots_group, else incoming webhooks for those of
// its can_create_write_only_bots_group, else none.
func allowedBotTypes(ctx context.Context, tx chatcore.Tx, u *chatcore.User) ([]chatcore.BotType, error) {
	p, err := chatcore.LoadPermissions(ctx, tx, u.RealmID)
	if err != nil {
		return nil, err
	}
	switch {
	case groups.RealmAllows(p, u, "can_create_bots_group"):
		return []chatcore.BotType{chatcore.BotTypeGeneric, chatcore.BotTypeIncomingWebhook, chatcore.BotTypeOutgoingWebhook}, nil
	case groups.RealmAllows(p, u, "can_create_write_only_bots_group"):
		return []chatcore.BotType{chatcore.BotTypeIncomingWebhook}, nil
	}
	return nil, nil
}

// CreateBotRequest holds the parameters of POST /bots.
type CreateBotRequest struct {
	FullName  *string `json:"full_name" wire:"required"`
	ShortName *string `json:"short_name" wire:"required"`
	// BotType is 1 (generic, the default), 2 (incoming webhook) or 3
	// (outgoing webhook).
	BotType *int `json:"bot_type"`
	// PayloadURL is the outgoing webhook's URL (a JSON string).
	PayloadURL *string `json:"payload_url"`
	// InterfaceType is the outgoing webhook's format: 1 generic (default), 2 Slack.
	InterfaceType *int `json:"interface_type"`
	// ServiceName names the service (default: the short name).
	ServiceName *string `json:"service_name"`
}

// CreateBotResult is the answer of POST /bots.
type CreateBotResult struct {
	UserID                      chatcore.UserID `json:"user_id"`
	APIKey                      string          `json:"api_key"`
	AvatarURL                   string          `json:"avatar_url"`
	DefaultSendingStream        *string         `json:"default_sending_stream"`
	DefaultEventsRegisterStream *string         `json:"default_events_register_stream"`
	DefaultAllPublicStreams     bool            `json:"default_all_public_streams"`
}

// CreateBot creates a bot owned by the actor, as POST /bots: its address is
// <short_name>-bot@<host of the external URL> (chatcore.invalid when the URL names no domain); an outgoing-webhook bot gets
// a service with the payload URL, interface and a fresh token, and delivers
// as fixture bots do. The API key is returned once (only its hash is kept).
// Errors (BAD_REQUEST): "Not allowed for guest users", "This endpoint does
// not accept bot requests." (Zulip's @require_member_or_admin); the name
// refusals; "Bad name or username" for an empty short name or an address
// that is not one; "Invalid bot type" for a type the actor may not create
// (see allowedBotTypes); "Invalid interface type";
// "payload_url is not a URL"; "Name is already in use!"; "Username already
// in use". Events: realm_user add to the realm, realm_bot add to the owner
// and the administrators.
func CreateBot(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req CreateBotRequest) (CreateBotResult, error) {
	var res CreateBotResult
	if req.FullName == nil || req.ShortName == nil {
		return res, errors.New("chatcore: CreateBot needs full_name and short_name")
	}
	if err := CheckBounds(*req.FullName, *req.ShortName); err != nil {
		return res, err
	}
	if req.ServiceName != nil && len(*req.ServiceName) > MaxEmailLength {
		return res, chatcore.BadRequest("Bad name or username")
	}
	if req.PayloadURL != nil && len(*req.PayloadURL) > maxURLLength+2 {
		return res, chatcore.BadRequest("payload_url is not a URL")
	}
	botType := chatcore.BotTypeGeneric
	if req.BotType != nil {
		botType = chatcore.BotType(*req.BotType)
	}
	iface := interfaceGeneric
	if req.InterfaceType != nil {
		iface = *req.InterfaceType
	}
	key, err := NewAPIKey()
	if err != nil {
		return res, err
	}
	token, err := NewAPIKey()
	if err != nil {
		return res, err
	}
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := requireMemberOrAdmin(a); err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, a.RealmID)
		if err != nil {
			return err
		}
		name, err := checkNewName(ctx, tx, realm, *req.FullName, 0)
		if err != nil {
			return err
		}
		short := strings.TrimSpace(*req.ShortName)
		if short == "" || len(short) > MaxEmailLength {
			return chatcore.BadRequest("Bad name or username")
		}
		email := short + "-bot@" + botDomain(svc)
		if err := checkNewEmail(ctx, tx, realm.ID, email); err != nil {
			if e, ok := errors.AsType[*chatcore.Error](err); ok && strings.HasPrefix(e.Msg, "Email '") {
				return chatcore.BadRequest("Username already in use")
			}
			return err
		}
		allowed, err := allowedBotTypes(ctx, tx, a)
		if err != nil {
			return err
		}
		if !slices.Contains(allowed, botType) {
			return chatcore.BadRequest("Invalid bot type")
		}
		ifaceName, ok := interfaceName(iface)
		if !ok {
			return chatcore.BadRequest("Invalid interface type")
		}
		payload := ""
		if req.PayloadURL != nil {
			payload = jsonString(*req.PayloadURL)
		}
		if botType == chatcore.BotTypeOutgoingWebhook {
			if payload, err = checkPayloadURL("payload_url", payload); err != nil {
				return err
			}
		}
		if err := checkBotNameAvailable(ctx, tx, realm.ID, name, 0); err != nil {
			return err
		}
		bot := &chatcore.User{
			RealmID: realm.ID, Email: email, FullName: name, FullNameKey: chatcore.FoldKey(name),
			Role: chatcore.RoleMember, IsActive: true, IsBot: true, BotType: botType, BotOwnerID: a.ID,
			APIKeyHash: chatcore.HashAPIKey(key), AvatarSource: "G", DateJoined: svc.Now(),
			Settings: chatcore.DefaultSettings(),
		}
		if err := tx.CreateUser(ctx, bot); err != nil {
			if errors.Is(err, chatcore.ErrConflict) {
				return chatcore.BadRequest("Username already in use")
			}
			return err
		}
		var services []chatcore.BotService
		if botType == chatcore.BotTypeOutgoingWebhook {
			svcName := short
			if req.ServiceName != nil && strings.TrimSpace(*req.ServiceName) != "" {
				svcName = strings.TrimSpace(*req.ServiceName)
			}
			s := chatcore.BotService{BotID: bot.ID, Name: svcName, BaseURL: payload, Token: token, Interface: ifaceName}
			if err := tx.CreateBotService(ctx, &s); err != nil {
				return err
			}
			services = append(services, s)
		}
		if err := userAddEvents(ctx, svc, tx, fx, bot); err != nil {
			return err
		}
		to, err := botAudience(ctx, tx, bot)
		if err != nil {
			return err
		}
		info := botInfo(svc, bot, services)
		info["api_key"] = key
		fx.Event(bot.RealmID, to, map[string]any{"type": "realm_bot", "op": "add", "bot": info})
		res = CreateBotResult{UserID: bot.ID, APIKey: key, AvatarURL: svc.AvatarURL(bot)}
		return nil
	})
	return res, err
}

// checkBotNameAvailable is Zulip's check_bot_name_available: no active
// user of the realm other than self may have the name.
func checkBotNameAvailable(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, name string, self chatcore.UserID) error {
	others, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm, FullNameKey: chatcore.FoldKey(name), Active: new(true)})
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID != self && o.FullName == name {
			return chatcore.BadRequest("Name is already in use!")
		}
	}
	return nil
}

// botAudience is who hears of a bot's changes (Zulip's
// bot_owner_user_ids): its owner and the realm's active administrators.
func botAudience(ctx context.Context, tx chatcore.Tx, bot *chatcore.User) ([]chatcore.UserID, error) {
	admins, err := chatcore.ActiveAdminIDs(ctx, tx, bot.RealmID)
	if err != nil {
		return nil, err
	}
	ids := []chatcore.UserID{}
	if bot.BotOwnerID != 0 {
		ids = append(ids, bot.BotOwnerID)
	}
	for _, id := range admins {
		if id != bot.BotOwnerID {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// botUpdateEvent queues a realm_bot update of the bot's fields to its
// audience.
func botUpdateEvent(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, bot *chatcore.User, fields map[string]any) error {
	to, err := botAudience(ctx, tx, bot)
	if err != nil {
		return err
	}
	b := map[string]any{"user_id": bot.ID}
	for k, v := range fields {
		b[k] = v
	}
	fx.Event(bot.RealmID, to, map[string]any{"type": "realm_bot", "op": "update", "bot": b})
	return nil
}

// serviceDicts is Zulip's get_service_dicts_for_bot for outgoing webhooks.
func serviceDicts(services []chatcore.BotService) []map[string]any {
	out := []map[string]any{}
	for _, s := range services {
		out = append(out, map[string]any{"base_url": s.BaseURL, "interface": interfaceType(s.Interface), "token": s.Token})
	}
	return out
}

// botInfo is a bot as realm_bot events and GET /bots show it (without
// its API key: chatcore keeps only the key's hash).
func botInfo(svc *chatcore.Service, bot *chatcore.User, services []chatcore.BotService) map[string]any {
	info := map[string]any{
		"user_id": bot.ID, "email": bot.Email, "full_name": bot.FullName, "bot_type": bot.BotType,
		"is_active": bot.IsActive, "avatar_url": svc.AvatarURL(bot), "services": serviceDicts(services),
		"default_sending_stream": nil, "default_events_register_stream": nil, "default_all_public_streams": false,
	}
	if bot.BotOwnerID != 0 {
		info["owner_id"] = bot.BotOwnerID
	}
	return info
}

// BotView is one bot of GET /bots.
type BotView map[string]any

// ListBots answers GET /bots: the actor's active bots, oldest first, as
// realm_bot events show them; "username" is the bot's address, as in
// Zulip. Unlike Zulip the API keys are not listed: chatcore keeps only
// their hashes (POST /bots/{id}/api_key/regenerate issues a new one).
func ListBots(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]BotView, error) {
	out := []BotView{}
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		out = out[:0]
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		bots, err := tx.Users(ctx, chatcore.UserFilter{RealmID: a.RealmID, BotOwnerID: a.ID, Bot: new(true), Active: new(true)})
		if err != nil {
			return err
		}
		for i := range bots {
			services, err := tx.BotServices(ctx, bots[i].ID)
			if err != nil {
				return err
			}
			info := botInfo(svc, &bots[i], services)
			info["username"] = bots[i].Email
			out = append(out, info)
		}
		return nil
	})
	return out, err
}

// accessBot is Zulip's access_bot_by_id: BAD_REQUEST "No such bot" for a
// missing id, another realm's user or a human; "User is deactivated";
// "Insufficient permission" unless the actor administers the realm or owns
// the bot.
func accessBot(ctx context.Context, tx chatcore.Tx, a *chatcore.User, id chatcore.UserID) (*chatcore.User, error) {
	t, err := chatcore.UserInRealm(ctx, tx, a.RealmID, id)
	if errors.Is(err, chatcore.ErrNotFound) || err == nil && !t.IsBot {
		return nil, chatcore.BadRequest("No such bot")
	}
	if err != nil {
		return nil, err
	}
	if !t.IsActive {
		return nil, chatcore.BadRequest("User is deactivated")
	}
	if !canAdminUser(a, t) {
		return nil, chatcore.BadRequest("Insufficient permission")
	}
	return t, nil
}

// UpdateBotRequest holds the parameters of PATCH /bots/{bot_id}.
type UpdateBotRequest struct {
	FullName   *string          `json:"full_name"`
	Role       *chatcore.Role   `json:"role"`
	BotOwnerID *chatcore.UserID `json:"bot_owner_id"`
	// ServicePayloadURL and ServiceInterface change an outgoing webhook
	// bot's service (ignored for other bots).
	ServicePayloadURL *string `json:"service_payload_url"`
	ServiceInterface  *int    `json:"service_interface"`
}

// UpdateBotResult is the answer of PATCH /bots/{bot_id}.
type UpdateBotResult struct {
	FullName                    string  `json:"full_name"`
	AvatarURL                   string  `json:"avatar_url"`
	ServiceInterface            *int    `json:"service_interface"`
	ServicePayloadURL           *string `json:"service_payload_url"`
	DefaultSendingStream        *string `json:"default_sending_stream"`
	DefaultEventsRegisterStream *string `json:"default_events_register_stream"`
	DefaultAllPublicStreams     bool    `json:"default_all_public_streams"`
	BotOwner                    string  `json:"bot_owner,omitempty"`
}

// UpdateBot changes a bot's name, role, owner or outgoing-webhook service,
// as PATCH /bots/{bot_id}. Errors (BAD_REQUEST unless said): those of
// access (see ListBots' siblings: "No such bot", "User is deactivated",
// "Insufficient permission"); the name refusals and "Name is already in
// use!"; "Invalid role"; UNAUTHORIZED_PRINCIPAL "Must be an organization
// owner" to grant or take away the owner role, "Must be an organization
// administrator" for any other role change by a non-administrator;
// "Failed to change owner, no such user", "Failed to change owner, user is
// deactivated", "Failed to change owner, bots can't own other bots";
// "Invalid interface type", "service_payload_url is not a URL". Events:
// realm_user and realm_bot updates of each change.
func UpdateBot(ctx context.Context, svc *chatcore.Service, actorID, botID chatcore.UserID, req UpdateBotRequest) (UpdateBotResult, error) {
	var res UpdateBotResult
	if req.Role != nil && !validRole(*req.Role) {
		return res, chatcore.BadRequest("Invalid role")
	}
	if req.FullName != nil {
		if err := CheckBounds(*req.FullName, ""); err != nil {
			return res, err
		}
	}
	if req.ServicePayloadURL != nil && len(*req.ServicePayloadURL) > maxURLLength+2 {
		return res, chatcore.BadRequest("service_payload_url is not a URL")
	}
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		bot, err := accessBot(ctx, tx, a, botID)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, bot.RealmID)
		if err != nil {
			return err
		}
		var userFields, botFields []map[string]any
		oldOwner := bot.BotOwnerID
		if req.FullName != nil {
			name, err := checkNewName(ctx, tx, realm, *req.FullName, bot.ID)
			if err != nil {
				return err
			}
			if name != bot.FullName {
				if err := checkBotNameAvailable(ctx, tx, realm.ID, name, bot.ID); err != nil {
					return err
				}
				bot.FullName, bot.FullNameKey = name, chatcore.FoldKey(name)
				userFields = append(userFields, map[string]any{"full_name": name})
				botFields = append(botFields, map[string]any{"full_name": name})
			}
		}
		if req.Role != nil && *req.Role != bot.Role {
			if (*req.Role == chatcore.RoleOwner || bot.Role == chatcore.RoleOwner) && a.Role != chatcore.RoleOwner {
				return chatcore.ErrMustBeOwner()
			}
			if !a.Role.IsAdmin() {
				return chatcore.ErrMustBeAdmin()
			}
			bot.Role = *req.Role
			userFields = append(userFields, map[string]any{"role": bot.Role})
		}
		if req.BotOwnerID != nil {
			owner, err := chatcore.UserInRealm(ctx, tx, realm.ID, *req.BotOwnerID)
			if errors.Is(err, chatcore.ErrNotFound) {
				return chatcore.BadRequest("Failed to change owner, no such user")
			}
			if err != nil {
				return err
			}
			if !owner.IsActive {
				return chatcore.BadRequest("Failed to change owner, user is deactivated")
			}
			if owner.IsBot {
				return chatcore.BadRequest("Failed to change owner, bots can't own other bots")
			}
			if owner.ID != bot.BotOwnerID {
				bot.BotOwnerID = owner.ID
				userFields = append(userFields, map[string]any{"bot_owner_id": owner.ID})
				botFields = append(botFields, map[string]any{"owner_id": owner.ID})
			}
		}
		if (req.ServicePayloadURL != nil || req.ServiceInterface != nil) && bot.BotType == chatcore.BotTypeOutgoingWebhook {
			services, err := tx.BotServices(ctx, bot.ID)
			if err != nil {
				return err
			}
			if len(services) > 0 {
				s := services[0]
				if req.ServiceInterface != nil {
					name, ok := interfaceName(*req.ServiceInterface)
					if !ok {
						return chatcore.BadRequest("Invalid interface type")
					}
					s.Interface = name
					res.ServiceInterface = req.ServiceInterface
				}
				if req.ServicePayloadURL != nil {
					u, err := checkPayloadURL("service_payload_url", jsonString(*req.ServicePayloadURL))
					if err != nil {
						return err
					}
					s.BaseURL = u
					res.ServicePayloadURL = &u
				}
				if err := tx.UpdateBotService(ctx, &s); err != nil {
					return err
				}
				services[0] = s
				botFields = append(botFields, map[string]any{"services": serviceDicts(services)})
			}
		}
		if len(userFields) > 0 {
			if err := tx.UpdateUser(ctx, bot); err != nil {
				return err
			}
		}
		for _, f := range userFields {
			if err := userUpdateEvent(ctx, tx, fx, bot, f); err != nil {
				return err
			}
		}
		if len(botFields) > 0 {
			to, err := botAudience(ctx, tx, bot)
			if err != nil {
				return err
			}
			if oldOwner != bot.BotOwnerID && oldOwner != 0 {
				to = chatcore.IncludeUser(to, &chatcore.User{ID: oldOwner})
			}
			for _, f := range botFields {
				b := map[string]any{"user_id": bot.ID}
				for k, v := range f {
					b[k] = v
				}
				fx.Event(bot.RealmID, to, map[string]any{"type": "realm_bot", "op": "update", "bot": b})
			}
		}
		res.FullName, res.AvatarURL = bot.FullName, svc.AvatarURL(bot)
		if bot.BotOwnerID != 0 {
			owner, err := tx.User(ctx, bot.BotOwnerID)
			if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
				return err
			}
			if err == nil {
				res.BotOwner = svc.APIEmail(owner)
			}
		}
		return nil
	})
	return res, err
}

// DeactivateBot deactivates a bot, as DELETE /bots/{bot_id}: its
// subscriptions end and its event queues go. Errors: those of access ("No
// such bot", "User is deactivated", "Insufficient permission"). Events:
// realm_user update is_active false to the realm, realm_bot update to the
// owner and administrators.
func DeactivateBot(ctx context.Context, svc *chatcore.Service, actorID, botID chatcore.UserID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		bot, err := accessBot(ctx, tx, a, botID)
		if err != nil {
			return err
		}
		bot.IsActive = false
		if err := tx.UpdateUser(ctx, bot); err != nil {
			return err
		}
		if err := tx.DeactivateSubscriptions(ctx, bot.ID); err != nil {
			return err
		}
		qs, err := tx.EventQueues(ctx, chatcore.EventQueueFilter{UserID: bot.ID})
		if err != nil {
			return err
		}
		if _, err := chatcore.DeleteQueues(ctx, tx, qs); err != nil {
			return err
		}
		if err := userUpdateEvent(ctx, tx, fx, bot, map[string]any{"is_active": false}); err != nil {
			return err
		}
		return botUpdateEvent(ctx, tx, fx, bot, map[string]any{"is_active": false})
	})
}

// RegenerateBotAPIKey gives a bot a new API key, as POST
// /bots/{bot_id}/api_key/regenerate, and returns it; the old one stops
// working at once. Errors: those of access. Event: realm_bot update
// api_key to the owner and administrators.
func RegenerateBotAPIKey(ctx context.Context, svc *chatcore.Service, actorID, botID chatcore.UserID) (string, error) {
	key, err := NewAPIKey()
	if err != nil {
		return "", err
	}
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		bot, err := accessBot(ctx, tx, a, botID)
		if err != nil {
			return err
		}
		bot.APIKeyHash = chatcore.HashAPIKey(key)
		if err := tx.UpdateUser(ctx, bot); err != nil {
			return err
		}
		return botUpdateEvent(ctx, tx, fx, bot, map[string]any{"api_key": key})
	})
	if err != nil {
		return "", err
	}
	return key, nil
}
