package storetest

var (
	settingsTests    []test
	groupTests       []test
	streamTests      []test
	scheduledTests   []test
	linkifierTests   []test
	draftTests       []test
	emailChangeTests []test
)
