package markdown

import (
	"context"
	"testing"

	"github.com/matryer/is"
)

// span is Zulip's markup of a Unicode emoji.
func span(code, name, title string) string {
	return `<span aria-label="` + title + `" class="emoji emoji-` + code + `" role="img" title="` + title + `">:` + name + `:</span>`
}

// TestRenderEmojiZulipCases renders the emoji cases of Zulip's Markdown test
// fixtures (named after them) and a few of chatcore's own, with Zulip's
// exact HTML.
func TestRenderEmojiZulipCases(t *testing.T) {
	smile := span("1f642", "smile", "smile")
	poop := span("1f4a9", "poop", "poop")
	alien := span("1f47d", "alien", "alien")
	for _, tc := range []struct{ name, in, want string }{
		{"many_emoji", "test :smile: again :poop:\n:) foo:)bar x::y::z :wasted waste: :fakeemojithisshouldnotrender:",
			"<p>test " + smile + " again " + poop + "<br>\n:) foo:)bar x::y::z :wasted waste: :fakeemojithisshouldnotrender:</p>"},
		{"random_emoji_1", ":airplane:", "<p>" + span("2708", "airplane", "airplane") + "</p>"},
		{"zulip_emoji", ":zulip:", `<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>`},
		{"random_emoji_2", ":poop:", "<p>" + poop + "</p>"},
		{"emoji_sequence_one", "🤷\u200d♀️", "<p>" + span("1f937-200d-2640", "woman_shrugging", "woman shrugging") + "</p>"},
		{"emoji_sequence_two", "👁\u200d🗨 #️⃣", "<p>" + span("1f441-200d-1f5e8", "eye_in_speech_bubble", "eye in speech bubble") + " " + span("0023-20e3", "hash", "hash") + "</p>"},
		{"unrecognized_emoji_sequence_one", "pheonix bird from 15.1: 🐦\u200d🔥", "<p>pheonix bird from 15.1: 🐦\u200d🔥</p>"},
		{"unrecognized_emoji_sequence_three", "normal lemon 🍋, purple lemon? 🍋\u200d🟪",
			"<p>normal lemon " + span("1f34b", "lemon", "lemon") + ", purple lemon? 🍋\u200d🟪</p>"},
		{"unrecognized_emoji_sequence_skin_tone", "man in manual wheelchair: dark skin tone 👨🏿\u200d🦽",
			"<p>man in manual wheelchair: dark skin tone 👨🏿\u200d🦽</p>"},
		{"emojis_without_space", ":cat:hello:dog::rabbit:",
			"<p>" + span("1f408", "cat", "cat") + "hello" + span("1f415", "dog", "dog") + span("1f407", "rabbit", "rabbit") + "</p>"},
		{"emojis_newline", ":cat:\n:dog:", "<p>" + span("1f408", "cat", "cat") + "<br>\n" + span("1f415", "dog", "dog") + "</p>"},
		{"eye in speech bubble by name", ":eye_in_speech_bubble:", "<p>" + span("1f441-200d-1f5e8", "eye_in_speech_bubble", "eye in speech bubble") + "</p>"},
		{"not_emoji", ":not_an_emoji:", "<p>:not_an_emoji:</p>"},
		{"unicode_emoji", "\U0001f4a9", "<p>" + poop + "</p>"},
		{"two_unicode_emoji", "\U0001f4a9\U0001f4a9", "<p>" + poop + poop + "</p>"},
		{"two_unicode_emoji_separated_by_text", "\U0001f4a9 word \U0001f4a9", "<p>" + poop + " word " + poop + "</p>"},
		{"miscellaneous_symbols_and_pictographs", "Merry Christmas!!\U0001f384", "<p>Merry Christmas!!" + span("1f384", "holiday_tree", "holiday tree") + "</p>"},
		{"miscellaneous_and_dingbats_emoji", "\u2693\u2797", "<p>" + span("2693", "anchor", "anchor") + span("2797", "division", "division") + "</p>"},
		{"supplemental_symbols_and_pictographs", "I am a robot \U0001f916.", "<p>I am a robot " + span("1f916", "robot", "robot") + ".</p>"},
		{"miscellaneous_symbols_and_arrows", "Black upward arrow \u2b06\ufe0f", "<p>Black upward arrow " + span("2b06", "up", "up") + "</p>"},
		{"unicode_emoji_without_space", "Extra\U0001f47dTerrestrial", "<p>Extra" + alien + "Terrestrial</p>"},
		{"unicode_emojis_new_line", "\U0001f47d\n\U0001f47d", "<p>" + alien + "<br>\n" + alien + "</p>"},
		{"emoji_alongside_punctuation", ":smile:, :smile:; :smile:", "<p>" + smile + ", " + smile + "; " + smile + "</p>"},
		{"emoji_pipeline_newline", "The winner is:\nsmiley:smiley:", "<p>The winner is:<br>\nsmiley" + span("1f603", "smiley", "smiley") + "</p>"},
		{"emoji_pipeline_emphasis", "Testing *:smiley*: :sm*iley*: Testing", "<p>Testing <em>:smiley</em>: :sm<em>iley</em>: Testing</p>"},
		{"emoji_pipeline_link", "Visit https:smiley://google.com.", "<p>Visit https" + span("1f603", "smiley", "smiley") + "//google.com.</p>"},
		{"skin_tones_are_banned", ":skin-tone-2: :skin-tone-3:", "<p>:skin-tone-2: :skin-tone-3:</p>"},
		{"emojis_with_zwj_are_banned", "Emojis like :man-girl-girl: which have ZWJ are banned for now.",
			"<p>Emojis like :man-girl-girl: which have ZWJ are banned for now.</p>"},
		{"valid_emoji_preceded_by_invalid_emoji", "This is :invalidemoji: which should not prevent rendering :smile:",
			"<p>This is :invalidemoji: which should not prevent rendering " + smile + "</p>"},
		// chatcore's own cases.
		{"custom emoji", ":green_tick: ok", `<p><img alt=":green_tick:" class="emoji" src="/user_avatars/1/emoji/green_tick.png" title="green tick"> ok</p>`},
		{"an unknown name is consumed", ":foo:smile:", "<p>:foo:smile:</p>"},
		{"not in code", "`:smile:` and\n\n    :smile: 😀", "<p><code>:smile:</code> and</p>\n<div class=\"codehilite\"><pre><span></span><code>:smile: 😀\n</code></pre></div>"},
		{"not in links", "[:smile: 😀](https://x.example) https://x.example/:smile:",
			`<p><a href="https://x.example">:smile: 😀</a> <a href="https://x.example/:smile">https://x.example/:smile</a>:</p>`},
		{"not in linkifier links", "#4:smile:", `<p><a href="https://x.example/4">#4</a>` + smile + "</p>"},
		{"text presentation stays text", "❤ ↔ 1 # ©", "<p>❤ ↔ 1 # ©</p>"},
		{"presentation selector", "❤️", "<p>" + span("2764", "heart", "heart") + "</p>"},
		{"inside emphasis and mentions", "**:smile:** @**King Hamlet** 😀",
			`<p><strong>` + smile + `</strong> <span class="user-mention" data-user-id="10">@King Hamlet</span> ` + span("1f600", "grinning", "grinning") + "</p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			res, err := Render(context.Background(), newFakeRealm(t), tc.in)
			is.NoErr(err)
			is.Equal(res.HTML, tc.want) // Zulip's HTML
		})
	}
}

// TestRenderRealmEmojiWins: a realm's custom emoji wins over a Unicode
// emoji name and over :zulip:.
func TestRenderRealmEmojiWins(t *testing.T) {
	is := is.New(t)
	r := newFakeRealm(t)
	r.emoji = map[string]string{"smile": "/user_avatars/1/emoji/images/9.png", "zulip": "/user_avatars/1/emoji/images/z.png"}
	res, err := Render(context.Background(), r, ":smile: :zulip:")
	is.NoErr(err)
	is.Equal(res.HTML, `<p><img alt=":smile:" class="emoji" src="/user_avatars/1/emoji/images/9.png" title="smile"> `+
		`<img alt=":zulip:" class="emoji" src="/user_avatars/1/emoji/images/z.png" title="zulip"></p>`)
}
