package chatcore

// Rendering: the Service's side of internal/markdown.
//
// Rendering a message with a realm's linkifiers costs CPU in proportion to the
// content and the number of linkifiers (a 10 KB message with 2,000 linkifiers
// takes a large fraction of a second), so it must not run while the store's
// write lock is held. The send paths therefore render twice at most:
//
//  1. PrerenderIn renders the content in a read-only View through a
//     markdown.Recorder, which records every answer the renderer was given: the users looked up
//     by id and by name, the channels looked up by name, and the version of
//     the realm's linkifier list ([LinkifierStore.LinkifiersVersion]), read
//     before the rows in the same View, and the realm's active custom emoji
//     when the content has :name: syntax.
//  2. Inside the write transaction, RenderChecked asks the store the same
//     questions again and compares the answers. The rendered HTML is a pure
//     function of the content and those answers, so when they are equal the
//     View's result is reused; when a mentioned user, a linked channel or a
//     linkifier changed in between (rare), the content is rendered again
//     inside the transaction.
//
// The check costs one store read per distinct mention or channel link (the
// content bounds them) plus one read of the linkifier version, however many
// linkifiers the realm has, with no regular expression compiled or run, and
// one read of the realm's custom emoji for content with :name: syntax (sends
// announce it, so PostgreSQL prefetches it with the send's other reads).

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore/internal/fifocache"
	"github.com/chatcore/chatcore/internal/linkify"
	"github.com/chatcore/chatcore/internal/markdown"
)

// MaxRenderedLength is the largest rendered HTML of a message, in characters.
// Zulip refuses a message whose rendering exceeds 100 times its 10,000-character
// content limit with BAD_REQUEST "Unable to render message".
const MaxRenderedLength = 100 * MaxMessageLength

// errUnableToRender is Zulip's error for a message whose rendering is refused.
func errUnableToRender() *Error { return BadRequest("Unable to render message") }

// Rendered is message content rendered for a realm.
type Rendered struct {
	// HTML is the rendered content; Mentioned the users it mentions (mentions
	// inside code left out); IsMe reports a /me message.
	HTML      string
	Mentioned []UserID
	IsMe      bool
	// StreamWildcard and TopicWildcard report non-silent wildcard mentions.
	StreamWildcard, TopicWildcard bool
	// links are the realm's compiled linkifiers the rendering used, still
	// current in the transaction that accepted it (nil when not loaded), so
	// that the message's topic links need no second load inside it.
	links []compiledLinkifier
}

// Prerendered is a rendering done outside the write transaction, with the
// store answers it depended on.
type Prerendered struct {
	realm RealmID
	body  string
	out   Rendered
	err   *Error // a refusal of the rendering itself (the size cap)
	deps  *markdown.Recorder
}

// txSource answers the renderer's questions (markdown.VersionedResolver)
// from a Tx for one realm; a markdown.Recorder over it remembers the answers
// so that the rendering can be checked against another transaction.
//
// With links set, the linkifiers it reads go into that cache; with a nil tx
// it answers from the cache alone and fails every other question with
// errNeedsStore (see linkifierCache).
type txSource struct {
	tx    Tx
	realm RealmID
	links *linkifierCache
	// emoji, when set, caches the custom emoji read; with a nil tx the
	// cached ones answer.
	emoji *emojiCache
	// version is the last LinkifiersVersion answer.
	version int64
}

// newTxResolver returns a recording resolver over tx for the realm.
func newTxResolver(tx Tx, realm RealmID) *markdown.Recorder {
	return markdown.NewRecorder(&txSource{tx: tx, realm: realm}, FoldKey)
}

// errNeedsStore ends a rendering without a transaction that needs a store
// answer (see linkifierCache).
var errNeedsStore = errors.New("chatcore: rendering needs the store")

// UserByID implements markdown.Resolver: users of other realms are unknown.
func (r *txSource) UserByID(ctx context.Context, id int64) (*markdown.User, error) {
	if r.tx == nil {
		return nil, errNeedsStore
	}
	return lookupMentionByID(ctx, r.tx, r.realm, UserID(id))
}

// UserByName implements markdown.Resolver.
func (r *txSource) UserByName(ctx context.Context, name string) (*markdown.User, error) {
	if r.tx == nil {
		return nil, errNeedsStore
	}
	return lookupMentionByName(ctx, r.tx, r.realm, FoldKey(name))
}

// ChannelByName implements markdown.Resolver: channels of other realms are
// unknown.
func (r *txSource) ChannelByName(ctx context.Context, name string) (*markdown.Channel, error) {
	if r.tx == nil {
		return nil, errNeedsStore
	}
	return lookupChannel(ctx, r.tx, r.realm, name)
}

// Linkifiers implements markdown.Resolver. The Recorder asks for the version
// first, so r.version is the version of the list tx gives.
func (r *txSource) Linkifiers(ctx context.Context) ([]*linkify.Linkifier, error) {
	if r.tx == nil {
		c, ok := r.links.get(r.realm)
		if !ok || c.version != r.version {
			return nil, errNeedsStore
		}
		return c.compiled, nil
	}
	return r.links.at(ctx, r.tx, r.realm, r.version)
}

// LinkifiersVersion implements markdown.VersionedResolver.
func (r *txSource) LinkifiersVersion(ctx context.Context) (int64, error) {
	if r.tx == nil {
		c, ok := r.links.get(r.realm)
		if !ok {
			return 0, errNeedsStore
		}
		r.version = c.version
		return c.version, nil
	}
	v, err := r.tx.LinkifiersVersion(ctx, r.realm)
	r.version = v
	return v, err
}

// RealmEmoji implements markdown.Resolver: the realm's active custom emoji.
// Without a tx they come from the cache, which may be stale: the write
// transaction's check ([Service.RenderChecked]) reads them again.
func (r *txSource) RealmEmoji(ctx context.Context) (map[string]string, error) {
	if r.tx == nil {
		if set, ok := r.emoji.get(r.realm); ok {
			return set, nil
		}
		return nil, errNeedsStore
	}
	set, err := activeRealmEmojiURLs(ctx, r.tx, r.realm)
	if err == nil {
		r.emoji.put(r.realm, set)
	}
	return set, err
}

// lookupMentionByID returns the realm's user with the id, or nil.
func lookupMentionByID(ctx context.Context, tx Tx, realm RealmID, id UserID) (*markdown.User, error) {
	u, err := UserInRealm(ctx, tx, realm, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return mentionUser(u), nil
}

// lookupMentionByName returns the user a mention of the full name with the
// fold key means: as in Zulip, the first active user by id among those who
// share the name, else the first; nil when nobody has it.
func lookupMentionByName(ctx context.Context, tx Tx, realm RealmID, key string) (*markdown.User, error) {
	users, err := tx.Users(ctx, UserFilter{RealmID: realm, FullNameKey: key})
	if err != nil || len(users) == 0 {
		return nil, err
	}
	for i := range users {
		if users[i].IsActive {
			return mentionUser(&users[i]), nil
		}
	}
	return mentionUser(&users[0]), nil
}

func mentionUser(u *User) *markdown.User {
	return &markdown.User{ID: int64(u.ID), FullName: u.FullName, Active: u.IsActive}
}

// lookupChannel returns the realm's channel with the name, or nil.
func lookupChannel(ctx context.Context, tx Tx, realm RealmID, name string) (*markdown.Channel, error) {
	st, err := tx.StreamByName(ctx, realm, name)
	if errors.Is(err, ErrNotFound) || (err == nil && st.RealmID != realm) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &markdown.Channel{ID: int64(st.ID), Name: st.Name}, nil
}

// compiledLinkifier is a realm linkifier compiled for matching.
type compiledLinkifier = *linkify.Linkifier

// compileLinkifiers compiles rows in order, skipping those that no longer
// compile (as Zulip does).
func compileLinkifiers(rows []Linkifier) []compiledLinkifier {
	out := make([]compiledLinkifier, 0, len(rows))
	for _, l := range rows {
		if c, ok := linkify.Compile(l.Pattern, l.URLTemplate); ok {
			out = append(out, c)
		}
	}
	return out
}

// loadLinkifiers returns the realm's linkifiers compiled, in processing order.
func loadLinkifiers(ctx context.Context, tx Tx, realm RealmID) ([]compiledLinkifier, error) {
	rows, err := tx.Linkifiers(ctx, realm)
	if err != nil {
		return nil, err
	}
	return compileLinkifiers(rows), nil
}

// TopicLinksIn returns the topic_links of topic in realm, as tx sees the
// realm's linkifiers: the links they make of it, as a message and its
// events show them. The compiled linkifiers come from the Service's cache
// while the realm's linkifiers version in tx is the cached one. Errors come
// from the store.
func (s *Service) TopicLinksIn(ctx context.Context, tx Tx, realm RealmID, topic string) ([]TopicLink, error) {
	links, err := s.linkifiersIn(ctx, tx, realm)
	if err != nil {
		return nil, err
	}
	return topicLinks(links, topic), nil
}

// linkifiersIn returns the realm's compiled linkifiers as tx sees them:
// the Service's cached ones while the realm's linkifiers version in tx is
// the cached one (a store may answer the version from the realm's read),
// else the ones tx reads.
func (s *Service) linkifiersIn(ctx context.Context, tx Tx, realm RealmID) ([]compiledLinkifier, error) {
	version, err := tx.LinkifiersVersion(ctx, realm)
	if err != nil {
		return nil, err
	}
	return s.links.at(ctx, tx, realm, version)
}

// topicLinks returns the topic_links of a topic with the realm's compiled
// linkifiers.
func topicLinks(linkifiers []compiledLinkifier, topic string) []TopicLink {
	links := linkify.TopicLinks(linkifiers, topic)
	out := make([]TopicLink, len(links))
	for i, l := range links {
		out[i] = TopicLink{Text: l.Text, URL: l.URL}
	}
	return out
}

// renderWith renders content through r, refusing a rendering over
// [MaxRenderedLength] characters. Store errors are returned as they are.
func renderWith(ctx context.Context, r *markdown.Recorder, content string) (Rendered, error) {
	res, err := markdown.Render(ctx, r, content)
	if err != nil {
		return Rendered{}, err
	}
	// The HTML is mostly ASCII: its byte length bounds its character count,
	// so the rune count is needed only near the cap.
	if len(res.HTML) > MaxRenderedLength && runeCountOver(res.HTML, MaxRenderedLength) {
		return Rendered{}, errUnableToRender()
	}
	out := Rendered{HTML: res.HTML, IsMe: res.IsMe, StreamWildcard: res.StreamWildcard, TopicWildcard: res.TopicWildcard,
		links: r.Compiled()}
	for _, id := range res.Mentioned {
		out.Mentioned = append(out.Mentioned, UserID(id))
	}
	return out, nil
}

// runeCountOver reports whether s has more than n characters.
func runeCountOver(s string, n int) bool {
	for range s {
		if n == 0 {
			return true
		}
		n--
	}
	return false
}

// RenderMessage renders message content for the realm inside tx. It returns
// the HTML, the active users of the realm the content really mentions
// (outside code, not silently; sorted, without duplicates) and whether it is
// a /me message. Errors: BAD_REQUEST "Unable to render message" when the HTML
// exceeds [MaxRenderedLength] characters; others come from the store.
func (s *Service) RenderMessage(ctx context.Context, tx Tx, realm RealmID, content string) (string, []UserID, bool, error) {
	out, err := renderWith(ctx, newTxResolver(tx, realm), content)
	return out.HTML, out.Mentioned, out.IsMe, err
}

// RenderContent renders message content for realm as the Service stores it,
// resolving mentions, channel links and linkifiers through tx (so that what
// tx has written already counts). It returns the HTML and whether the content
// is a /me message. Errors: BAD_REQUEST "Unable to render message" when the
// HTML exceeds [MaxRenderedLength] characters; others come from the store.
func (s *Service) RenderContent(ctx context.Context, tx Tx, realm RealmID, content string) (html string, isMeMessage bool, err error) {
	html, _, isMeMessage, err = s.RenderMessage(ctx, tx, realm, content)
	return html, isMeMessage, err
}

// PrerenderIn renders body (normalised content, see [NormalizeContent]) for
// realm inside the read-only transaction tx, for [Service.RenderChecked] to
// reuse inside a later write transaction: it records what the rendering
// depended on (the users, channels and linkifier version it read), so that
// RenderChecked can tell whether the result still holds. Callers read what
// they need (the actor, the reminded message) in the same View. A refusal of
// the rendering itself is kept for the write transaction to report; other
// errors end the pre-render.
func PrerenderIn(ctx context.Context, tx Tx, realm RealmID, body string) (*Prerendered, error) {
	return prerenderWith(ctx, &txSource{tx: tx, realm: realm}, body)
}

// prerenderWith is PrerenderIn through src.
func prerenderWith(ctx context.Context, src *txSource, body string) (*Prerendered, error) {
	realm := src.realm
	deps := markdown.NewRecorder(src, FoldKey)
	out, err := renderWith(ctx, deps, body)
	refused, isRefusal := errors.AsType[*Error](err)
	if err != nil && !isRefusal {
		return nil, err
	}
	if err == nil && !deps.AskedLinkifiers() {
		// The send also needs them for the topic links: load them here,
		// outside the write lock, under the same version check.
		if out.links, err = deps.Linkifiers(ctx); err != nil {
			return nil, err
		}
	}
	deps.Detach() // the View's transaction ends with the caller's
	return &Prerendered{realm: realm, body: body, out: out, err: refused, deps: deps}, nil
}

// Prerender renders content sent by the actor outside the write transaction,
// for [Service.RenderChecked] to reuse inside it: in the actor's realm and
// normalised as a message stores it; nil when either is refused (the write
// transaction then reports it). authenticated is the user
// [Service.Authenticate] returned for the request, or nil: when it is the
// actor, the realm is taken from it, and content that needs no store answer
// is pre-rendered without a View from the realm's cached linkifiers;
// otherwise the actor is read in a View.
func (s *Service) Prerender(ctx context.Context, actorID UserID, authenticated *User, content string) *Prerendered {
	body, err := NormalizeContent(content)
	if err != nil {
		return nil
	}
	var realm RealmID
	if u := authenticatedAs(authenticated, actorID); u != nil {
		realm = u.RealmID // a user never changes realms
		if p, err := prerenderWith(ctx, &txSource{realm: realm, links: s.links, emoji: s.emoji}, body); err == nil {
			return p
		}
	}
	var p *Prerendered
	_ = s.View(ctx, func(tx Tx) error {
		if realm == 0 {
			u, err := Actor(ctx, tx, actorID)
			if err != nil {
				return err
			}
			realm = u.RealmID
		}
		var err error
		p, err = prerenderWith(ctx, &txSource{tx: tx, realm: realm, links: s.links, emoji: s.emoji}, body)
		return err
	})
	return p
}

// linkifierCache keeps each realm's compiled linkifiers with the
// LinkifiersVersion read before them, for at most maxCachedRealms realms
// (the oldest cached forgotten first). When content mentions nobody and
// links no channel, a send pre-renders with them without a transaction; the
// write transaction then compares the version, as for any pre-rendering
// ([Service.RenderChecked]), and renders again if it moved. Safe for concurrent use; a
// nil cache holds nothing.
type linkifierCache struct {
	realms *fifocache.Cache[RealmID, cachedLinkifiers]
}

type cachedLinkifiers struct {
	version  int64
	compiled []compiledLinkifier
}

// maxCachedRealms bounds a linkifierCache.
const maxCachedRealms = 1024

func newLinkifierCache() *linkifierCache {
	return &linkifierCache{realms: fifocache.New[RealmID, cachedLinkifiers](maxCachedRealms)}
}

func (c *linkifierCache) get(realm RealmID) (cachedLinkifiers, bool) {
	if c == nil {
		return cachedLinkifiers{}, false
	}
	return c.realms.Get(realm)
}

// at returns the realm's compiled linkifiers of version, the version tx
// gives: the cached ones when they are of that version, else the ones tx
// reads, which it then caches.
func (c *linkifierCache) at(ctx context.Context, tx Tx, realm RealmID, version int64) ([]compiledLinkifier, error) {
	if cached, ok := c.get(realm); ok && cached.version == version {
		return cached.compiled, nil
	}
	compiled, err := loadLinkifiers(ctx, tx, realm)
	if err == nil {
		c.put(realm, version, compiled)
	}
	return compiled, err
}

// put records the linkifiers read at version unless a newer one is known.
func (c *linkifierCache) put(realm RealmID, version int64, compiled []compiledLinkifier) {
	if c == nil {
		return
	}
	c.realms.Put(realm, cachedLinkifiers{version: version, compiled: compiled},
		func(old cachedLinkifiers) bool { return version > old.version })
}

// emojiCache keeps each realm's active custom emoji (name → image URL) as
// a transaction last read them, for at most maxCachedRealms realms (the
// oldest cached forgotten first). A send pre-renders :name: syntax with them
// without a transaction; the write transaction reads them again to check
// the pre-rendering (see [Service.RenderChecked]), which refreshes the
// cache, and renders again when they changed. Safe for concurrent use; a
// nil cache holds nothing. The maps it holds are never modified.
type emojiCache struct {
	realms *fifocache.Cache[RealmID, map[string]string]
}

func newEmojiCache() *emojiCache {
	return &emojiCache{realms: fifocache.New[RealmID, map[string]string](maxCachedRealms)}
}

func (c *emojiCache) get(realm RealmID) (map[string]string, bool) {
	if c == nil {
		return nil, false
	}
	return c.realms.Get(realm)
}

func (c *emojiCache) put(realm RealmID, set map[string]string) {
	if c != nil {
		c.realms.Put(realm, set, func(map[string]string) bool { return true })
	}
}

// RenderChecked renders body for the realm inside the write transaction tx,
// reusing pre (from [Service.Prerender]) when it rendered the same body for
// the same realm and tx still gives every answer it depended on; otherwise it
// renders again in tx.
func (s *Service) RenderChecked(ctx context.Context, tx Tx, realm RealmID, body string, pre *Prerendered) (Rendered, error) {
	if pre != nil && pre.realm == realm && pre.body == body {
		ok, err := pre.deps.Unchanged(ctx, &txSource{tx: tx, realm: realm, emoji: s.emoji})
		if err != nil {
			return Rendered{}, err
		}
		if ok {
			if pre.err != nil {
				return Rendered{}, pre.err
			}
			return pre.out, nil
		}
	}
	return renderWith(ctx, newTxResolver(tx, realm), body)
}
