package chatcore

// DefaultPasswordHasher exposes the default argon2id hasher to the external
// tests, which need it to give fixture users a password.
func DefaultPasswordHasher() PasswordHasher { return defaultHasher() }
