package httpadapter

import "net/http"

// AuthTurnRefs returns how many requests from the peer address addr hold or
// wait for that client's turn to have credentials checked (see
// [AuthThrottle]); h is a handler [New] returned.
func AuthTurnRefs(h http.Handler, addr string) int {
	t := h.(*handler).authFails
	client, _ := t.client(&http.Request{RemoteAddr: addr})
	return t.turns.refs(client)
}
