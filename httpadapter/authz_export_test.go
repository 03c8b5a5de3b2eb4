package httpadapter

// RoutePatterns returns the ServeMux pattern of every route the adapter
// serves, so the external authorization matrix can prove it covers them all.
func RoutePatterns() []string {
	h := &handler{}
	var out []string
	for _, rt := range h.routes() {
		if rt.raw == nil {
			out = append(out, rt.pattern)
		}
	}
	return out
}

// RawRoutePatterns lists the patterns of the routes that answer outside the
// JSON envelope (files, redirects); RoutePatterns lists the others.
func RawRoutePatterns() []string {
	h := &handler{}
	var out []string
	for _, rt := range h.routes() {
		if rt.raw != nil {
			out = append(out, rt.pattern)
		}
	}
	return out
}
