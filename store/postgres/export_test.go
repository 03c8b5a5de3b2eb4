package postgres

// OnBusLost makes b call fn when its listening connection is lost, before
// it reconnects.
func OnBusLost(b *Bus, fn func()) { b.lost.Store(&fn) }
