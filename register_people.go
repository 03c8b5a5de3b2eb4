package chatcore

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
