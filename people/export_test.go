package people

// UserAddEvents exposes userAddEvents to the external tests.
var UserAddEvents = userAddEvents
