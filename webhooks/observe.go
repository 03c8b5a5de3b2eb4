package webhooks

// Outcomes are the values [Options.OnOutcome] receives: "reply" (the
// integration answered with content, posted as the bot), "failure" (a
// "Failure! ..." notice was posted: an error status, an unreachable or
// refused address, retries used up), "empty" (the integration answered with
// nothing to post), "abandoned" (cut short by Shutdown; the stored delivery
// is resumed later), "taken" (another process resumed it first, or it had
// finished), "dropped" (every attempt started before a restart: whether the
// integration got it is unknown).
var Outcomes = []string{"reply", "failure", "empty", "abandoned", "taken", "dropped"}

// label is the outcome's name in Outcomes.
func (o outcome) label() string {
	switch {
	case o.taken:
		return "taken"
	case o.aborted:
		return "abandoned"
	case o.dropped:
		return "dropped"
	case o.reply != "":
		return "reply"
	case o.failure != "":
		return "failure"
	}
	return "empty"
}

// observe reports a delivery's outcome to Options.OnOutcome.
func (d *dispatcher) observe(label string) {
	if d.opts.OnOutcome != nil {
		d.opts.OnOutcome(label)
	}
}
