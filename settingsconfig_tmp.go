package chatcore

// settingsConfig is replaced by the settings work (settings.go).
type settingsConfig struct{}

func defaultSettingsConfig() settingsConfig { return settingsConfig{} }

type nopHasher struct{}

func (nopHasher) Hash(p string) (string, error)    { return p, nil }
func (nopHasher) Verify(h, p string) (bool, error) { return h == p, nil }
func defaultHasher() PasswordHasher                { return nopHasher{} }
