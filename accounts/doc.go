// Package accounts applies Zulip's rules for users' accounts: personal
// settings (PATCH /settings, with the administrators' bulk edit), password
// and e-mail address changes, reading users (GET /users, /users/{id},
// /users/{email}, /users/me) and deactivating them (DELETE /users/{id}).
//
// Each personal setting is one row of the table of package settings
// (settings.Table: wire name, type, default, allowed values, who may change
// it); the setting fields of [SettingsUpdate] are generated from it into
// settings_gen.go (go generate ./... runs settings/internal/gensettings).
package accounts
