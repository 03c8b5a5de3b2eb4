package httpadapter

// RoutePatterns returns the ServeMux pattern of every route the adapter
// serves, so the external authorization matrix can prove it covers them all.
func RoutePatterns() []string {
	h := &handler{}
	var out []string
	for _, rt := range h.routes() {
		out = append(out, rt.pattern)
	}
	return out
}
