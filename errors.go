package chatcore

import (
	"errors"
	"fmt"
	"time"
)

// Code is the Zulip wire error code carried in the "code" field of an error
// response.
type Code string

// The wire codes chatcore produces.
const (
	CodeBadRequest               Code = "BAD_REQUEST"
	CodeRequestVariableMissing   Code = "REQUEST_VARIABLE_MISSING"
	CodeRequestConfusingVar      Code = "REQUEST_CONFUSING_VAR"
	CodeInvalidJSON              Code = "INVALID_JSON"
	CodeUnauthorizedPrincipal    Code = "UNAUTHORIZED_PRINCIPAL"
	CodeUnauthorized             Code = "UNAUTHORIZED"
	CodeUserDeactivated          Code = "USER_DEACTIVATED"
	CodeRealmDeactivated         Code = "REALM_DEACTIVATED"
	CodeInvalidAPIKey            Code = "INVALID_API_KEY"
	CodeRateLimitHit             Code = "RATE_LIMIT_HIT"
	CodeCannotDeactivateLastUser Code = "CANNOT_DEACTIVATE_LAST_USER"
	CodeStreamDoesNotExist       Code = "STREAM_DOES_NOT_EXIST"
	CodeBadNarrow                Code = "BAD_NARROW"
	CodeBadEventQueueID          Code = "BAD_EVENT_QUEUE_ID"
	CodeExpectationMismatch      Code = "EXPECTATION_MISMATCH"
	CodeMoveTimeLimitExceeded    Code = "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED"
	CodeReactionAlreadyExists    Code = "REACTION_ALREADY_EXISTS"
	CodeReactionDoesNotExist     Code = "REACTION_DOES_NOT_EXIST"
	// CodeIncompatibleParameters: a request combines parameters that exclude
	// each other (GET /messages: message_ids with an anchor range).
	CodeIncompatibleParameters Code = "INCOMPATIBLE_PARAMETERS"
)

// Kind is a transport-neutral category of an [*Error]. Zulip's HTTP status is not
// a function of its code (a missing scheduled message is BAD_REQUEST with status
// 404), so transports choose their status from the Kind.
type Kind uint8

// The kinds of errors. The comment names the HTTP status the adapter uses.
const (
	KindInvalid         Kind = iota // 400
	KindNotFound                    // 404
	KindForbidden                   // 403
	KindUnauthenticated             // 401
	KindRateLimited                 // 429
	KindConflict                    // 409
	// KindUnavailable is passing trouble of the database ([ErrUnavailable]):
	// the request may succeed when made again after RetryAfter. 503.
	KindUnavailable
)

// String returns the lower-case name of the kind.
func (k Kind) String() string {
	switch k {
	case KindInvalid:
		return "invalid"
	case KindNotFound:
		return "not_found"
	case KindForbidden:
		return "forbidden"
	case KindUnauthenticated:
		return "unauthenticated"
	case KindRateLimited:
		return "rate_limited"
	case KindConflict:
		return "conflict"
	case KindUnavailable:
		return "unavailable"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Error is the error every [Service] method returns for a request that cannot be
// carried out. Msg is Zulip's exact user-facing text; Data holds extra keys of
// Zulip's error envelope (var_name, is_last_owner, errors, ...). Any error a
// Service method returns that is not an *Error is an internal failure (store,
// context) whose text must not be shown to users.
type Error struct {
	Code Code
	Kind Kind
	Msg  string
	Data map[string]any
	// RetryAfter is, on a [KindRateLimited] or [KindUnavailable] error, how
	// long the client should wait before making the request again. Transports report it rounded up
	// to whole seconds (at least one): the HTTP adapter as the envelope's
	// "retry-after" key and the Retry-After header, as Zulip does.
	RetryAfter time.Duration
	Err        error // the cause, if any
}

// Error returns a debugging string such as "chatcore: BAD_REQUEST: Invalid color_scheme".
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("chatcore: %s: %s: %v", e.Code, e.Msg, e.Err)
	}
	return fmt.Sprintf("chatcore: %s: %s", e.Code, e.Msg)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// BadRequest returns a BAD_REQUEST error of kind [KindInvalid] with the given message.
func BadRequest(msg string) *Error {
	return &Error{Code: CodeBadRequest, Kind: KindInvalid, Msg: msg}
}

// BadRequestf is [BadRequest] with a formatted message.
func BadRequestf(format string, args ...any) *Error {
	return BadRequest(fmt.Sprintf(format, args...))
}

// NotFound returns a BAD_REQUEST error of kind [KindNotFound], as Zulip's
// ResourceNotFoundError (HTTP 404 with code BAD_REQUEST).
func NotFound(msg string) *Error {
	return &Error{Code: CodeBadRequest, Kind: KindNotFound, Msg: msg}
}

// UnavailableRetryAfter is the RetryAfter of the errors [Unavailable] returns:
// a dropped PostgreSQL connection is replaced at once, and a SQLite lock held
// by another process is usually a short transaction.
const UnavailableRetryAfter = time.Second

// Unavailable returns the error of kind [KindUnavailable] for cause, an error
// wrapping [ErrUnavailable]: code BAD_REQUEST (Zulip's default code) with a
// message that asks the client to try again, and RetryAfter
// [UnavailableRetryAfter]. The Service's Update and View return it for such a
// store error; a transport that meets ErrUnavailable outside an [*Error] (a
// store call of its own) may use it too.
func Unavailable(cause error) *Error {
	return &Error{
		Code: CodeBadRequest, Kind: KindUnavailable,
		Msg:        "The server is temporarily unable to reach its database; try again shortly",
		RetryAfter: UnavailableRetryAfter,
		Err:        cause,
	}
}

// unavailable returns err as an [Unavailable] error when it wraps
// [ErrUnavailable] and is not one already, and err otherwise.
func unavailable(err error) error {
	if err == nil || !errors.Is(err, ErrUnavailable) {
		return err
	}
	if e, ok := errors.AsType[*Error](err); ok && e.Kind == KindUnavailable {
		return err
	}
	return Unavailable(err)
}

// MissingArgument returns Zulip's "Missing 'name' argument" error with var_name set.
func MissingArgument(name string) *Error {
	return &Error{
		Code: CodeRequestVariableMissing, Kind: KindInvalid,
		Msg:  fmt.Sprintf("Missing '%s' argument", name),
		Data: map[string]any{"var_name": name},
	}
}

// Unauthorized returns a 401-kind error with code UNAUTHORIZED and the given message.
func Unauthorized(msg string) *Error {
	return &Error{Code: CodeUnauthorized, Kind: KindUnauthenticated, Msg: msg}
}

// ErrRealmDeactivated is Zulip's refusal of every request of a realm its
// owner deactivated: 401 REALM_DEACTIVATED "This organization has been
// deactivated".
func ErrRealmDeactivated() *Error {
	return &Error{Code: CodeRealmDeactivated, Kind: KindUnauthenticated, Msg: "This organization has been deactivated"}
}

// The permission errors of Zulip's role decorators: HTTP 400, UNAUTHORIZED_PRINCIPAL.
// (No operation of chatcore requires the member role, so Zulip's "Must be an
// organization member" has no constructor here.)

// ErrMustBeAdmin is Zulip's OrganizationAdministratorRequiredError: HTTP
// 400 UNAUTHORIZED_PRINCIPAL "Must be an organization administrator".
func ErrMustBeAdmin() *Error {
	return &Error{Code: CodeUnauthorizedPrincipal, Kind: KindInvalid, Msg: "Must be an organization administrator"}
}

// ErrMustBeOwner is Zulip's OrganizationOwnerRequiredError: HTTP 400
// UNAUTHORIZED_PRINCIPAL "Must be an organization owner".
func ErrMustBeOwner() *Error {
	return &Error{Code: CodeUnauthorizedPrincipal, Kind: KindInvalid, Msg: "Must be an organization owner"}
}

// ErrorCode returns the wire code of err, or "" when err is not an [*Error].
func ErrorCode(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ""
}
