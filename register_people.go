package chatcore

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/internal/slicex"
)

// RegisterUsers is the realm_user section of POST /register: the realm's
// users as the actor sees them, and the actor's own account.
type RegisterUsers struct {
	// Active are the realm's active users and bots (realm_users), by id.
	Active []UserView
	// NonActive are the deactivated ones (realm_non_active_users), by id.
	NonActive []UserView
	// CrossRealmBots are the bots of every realm (cross_realm_bots); chatcore
	// has none: always empty.
	CrossRealmBots []UserView
	// Me is the actor's own view (email, delivery_email, full_name, role
	// flags, avatar).
	Me UserView
	// CanCreateChannels tells whether the actor may create public and
	// private channels (every non-guest).
	CanCreateChannels bool
	// CanSubscribeOthers tells whether the actor may subscribe other users
	// (every non-guest).
	CanSubscribeOthers bool
}

// GroupView is a user group as realm_user_groups shows it. Members are its
// active direct members; chatcore's groups are never system groups nor
// deactivated, and their creation is not recorded.
type GroupView struct {
	ID                GroupID   `json:"id"`
	Name              string    `json:"name"`
	Description       string    `json:"description"`
	Members           []UserID  `json:"members"`
	DirectSubgroupIDs []GroupID `json:"direct_subgroup_ids"`
	IsSystemGroup     bool      `json:"is_system_group"`
	Deactivated       bool      `json:"deactivated"`
	DateCreated       *int64    `json:"date_created"`
	CreatorID         *UserID   `json:"creator_id"`
}

// registerPeople fills the realm_user and realm_user_groups sections.
func (s *Service) registerPeople(ctx context.Context, tx Tx, u *User, want func(string) bool, st *RegisterState) error {
	if !want("realm_user") && !want("realm_user_groups") {
		return nil
	}
	users, err := tx.Users(ctx, UserFilter{RealmID: u.RealmID})
	if err != nil {
		return err
	}
	if want("realm_user") {
		ru := &RegisterUsers{Active: []UserView{}, NonActive: []UserView{}, CrossRealmBots: []UserView{},
			Me: s.ViewUser(u, u, false), CanCreateChannels: u.Role != RoleGuest, CanSubscribeOthers: u.Role != RoleGuest}
		for i := range users {
			v := s.ViewUser(u, &users[i], true)
			if users[i].IsActive {
				ru.Active = append(ru.Active, v)
			} else {
				ru.NonActive = append(ru.NonActive, v)
			}
		}
		st.Users = ru
	}
	if want("realm_user_groups") {
		active := map[UserID]bool{}
		for _, v := range users {
			active[v.ID] = v.IsActive
		}
		groups, err := tx.Groups(ctx, u.RealmID)
		if err != nil {
			return err
		}
		st.Groups = make([]GroupView, 0, len(groups))
		for _, g := range groups {
			members := slices.DeleteFunc(slices.Clone(g.Members), func(id UserID) bool { return !active[id] })
			slices.Sort(members)
			subgroups := slices.Clone(g.Subgroups)
			slices.Sort(subgroups)
			st.Groups = append(st.Groups, GroupView{ID: g.ID, Name: g.Name, Description: g.Description,
				Members: slicex.OrEmpty(members), DirectSubgroupIDs: slicex.OrEmpty(subgroups)})
		}
	}
	return nil
}
