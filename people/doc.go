// Package people holds the administration of a realm's people and bots as
// Zulip's REST API does it: creating accounts (POST /users), changing a
// user's name and role (PATCH /users/{id}), reactivating a user, a user's
// subscription status, and the bot routes (POST/GET /bots, PATCH and
// DELETE /bots/{id}, API key regeneration). Every operation is one store
// transaction; its realm_user and realm_bot events go through the
// Service's event log after the commit.
//
// [CreateAccountInTx] is the one way accounts are made: package invites
// uses it for the sign-up page of an invitation.
package people
