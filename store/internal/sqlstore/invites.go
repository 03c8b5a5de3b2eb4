package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
)

const inviteCols = "id, realm_id, key, multi_use, email, email_key, inviter_id, invite_as, stream_ids, " +
	"include_default_streams, notify_referrer, created_at, expires_at, status, used_by_id"

// streamIDsText encodes channel ids as a JSON array, the form both
// databases keep an invitation's channels in.
func streamIDsText(ids []store.StreamID) string {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ids) // a list of integers always encodes
	return string(b)
}

// inviteArgs returns the column values of inv after the id, in inviteCols order.
func (x *Tx) inviteArgs(inv *store.Invite) []any {
	return []any{int64(inv.RealmID), inv.Key, inv.MultiUse, inv.Email, store.FoldKey(inv.Email), IDArg(inv.InviterID),
		int64(inv.InviteAs), streamIDsText(inv.StreamIDs), inv.IncludeRealmDefaultStreams, inv.NotifyReferrer,
		x.d.Time(inv.CreatedAt), x.d.Time(inv.ExpiresAt), int64(inv.Status), IDArg(inv.UsedByID)}
}

// scanInvite reads one row of inviteCols.
func scanInvite(r Row, inv *store.Invite) error {
	var ids, emailKey string
	if err := r.Scan(Num(&inv.ID), Num(&inv.RealmID), &inv.Key, &inv.MultiUse, &inv.Email, &emailKey, ID(&inv.InviterID),
		Num(&inv.InviteAs), &ids, &inv.IncludeRealmDefaultStreams, &inv.NotifyReferrer, Time(&inv.CreatedAt),
		Time(&inv.ExpiresAt), Num(&inv.Status), ID(&inv.UsedByID)); err != nil {
		return err
	}
	inv.StreamIDs = nil
	if ids != "[]" {
		if err := json.Unmarshal([]byte(ids), &inv.StreamIDs); err != nil {
			return fmt.Errorf("invite %d: stream ids: %w", inv.ID, err)
		}
	}
	return nil
}

// CreateInvite implements [store.InviteStore].
func (x *Tx) CreateInvite(ctx context.Context, inv *store.Invite) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "invites", "create invite",
		"INSERT INTO invites ("+inviteCols+") VALUES ("+x.d.IDValue("invites")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id",
		int64(inv.ID), x.inviteArgs(inv)...)
	if err != nil {
		return err
	}
	inv.ID = store.InviteID(id)
	return nil
}

// Invite implements [store.InviteStore].
func (x *Tx) Invite(ctx context.Context, id store.InviteID) (*store.Invite, error) {
	var inv store.Invite
	if err := scanInvite(x.q.QueryRow(ctx, "SELECT "+inviteCols+" FROM invites WHERE id = $1", int64(id)), &inv); err != nil {
		return nil, x.classify(err, "invite")
	}
	return &inv, nil
}

// InviteByKey implements [store.InviteStore].
func (x *Tx) InviteByKey(ctx context.Context, key string) (*store.Invite, error) {
	var inv store.Invite
	if err := scanInvite(x.q.QueryRow(ctx, "SELECT "+inviteCols+" FROM invites WHERE key = $1", key), &inv); err != nil {
		return nil, x.classify(err, "invite")
	}
	return &inv, nil
}

// Invites implements [store.InviteStore].
func (x *Tx) Invites(ctx context.Context, f store.InviteFilter) ([]store.Invite, error) {
	where := []string{"realm_id = $1"}
	args := []any{int64(f.RealmID)}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
	}
	if f.InviterID != 0 {
		add("inviter_id = ?", int64(f.InviterID))
	}
	if f.Status != nil {
		add("status = ?", int64(*f.Status))
	}
	if f.Email != "" {
		add("NOT multi_use AND email_key = ?", store.FoldKey(f.Email))
	}
	if !f.CreatedSince.IsZero() {
		add("created_at >= ?", x.d.Time(f.CreatedSince))
	}
	q := "SELECT " + inviteCols + " FROM invites WHERE " + strings.Join(where, " AND ") + " ORDER BY id"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return scanAll(ctx, x, "invites", scanInvite, q, args...)
}

// UpdateInvite implements [store.InviteStore].
func (x *Tx) UpdateInvite(ctx context.Context, inv *store.Invite) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "UPDATE invites SET realm_id = $2, key = $3, multi_use = $4, email = $5, email_key = $6, "+
		"inviter_id = $7, invite_as = $8, stream_ids = $9, include_default_streams = $10, notify_referrer = $11, "+
		"created_at = $12, expires_at = $13, status = $14, used_by_id = $15 WHERE id = $1",
		append([]any{int64(inv.ID)}, x.inviteArgs(inv)...)...)
	return x.mustAffect(n, err, "update invite")
}

// UpdateBotService implements [store.InviteStore].
func (x *Tx) UpdateBotService(ctx context.Context, s *store.BotService) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "UPDATE bot_services SET bot_id = $2, name = $3, base_url = $4, token = $5, interface = $6 WHERE id = $1",
		int64(s.ID), int64(s.BotID), s.Name, s.BaseURL, s.Token, s.Interface)
	return x.mustAffect(n, err, "update bot service")
}
