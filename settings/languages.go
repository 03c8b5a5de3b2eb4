package settings

// zulipLanguages are the codes of the languages Zulip ships translations for
// (its locale directories, spelled as Zulip's default_language values: lower
// case, "-" before a region or script) with each language's own name, which
// the user_settings event for default_language carries as language_name.
var zulipLanguages = map[string]string{
	"ar":      "العربية",
	"be":      "Беларуская",
	"bg":      "Български",
	"bn":      "বাংলা",
	"bqi":     "Bakhtiari",
	"ca":      "Català",
	"cs":      "Čeština",
	"cy":      "Cymraeg",
	"da":      "Dansk",
	"de":      "Deutsch",
	"el":      "Ελληνικά",
	"en":      "English",
	"en-gb":   "British English",
	"eo":      "Esperanto",
	"es":      "Español",
	"et":      "Eesti",
	"fa":      "فارسی",
	"fi":      "Suomi",
	"fr":      "Français",
	"gl":      "Galego",
	"gu":      "ગુજરાતી",
	"hi":      "हिंदी",
	"hu":      "Magyar",
	"id":      "Bahasa Indonesia",
	"it":      "Italiano",
	"ja":      "日本語",
	"kk":      "Қазақ тілі",
	"ko":      "한국어",
	"lt":      "Lietuvių",
	"lv":      "Latviešu",
	"ml":      "മലയാളം",
	"mn":      "Монгол",
	"my":      "မြန်မာ",
	"nl":      "Nederlands",
	"no":      "Norsk",
	"pl":      "Polski",
	"pt":      "Português",
	"pt-br":   "Português (Brasil)",
	"pt-pt":   "Português (Portugal)",
	"ro":      "Română",
	"ru":      "Русский",
	"si":      "සිංහල",
	"sl":      "Slovenščina",
	"sr":      "Српски",
	"sv":      "Svenska",
	"ta":      "தமிழ்",
	"tl":      "Tagalog",
	"tr":      "Türkçe",
	"uk":      "Українська",
	"vi":      "Tiếng Việt",
	"zh-hans": "简体中文",
	"zh-hant": "繁體中文",
	"zh-tw":   "中文 (台灣)",
}

// zulipNotificationSounds are the sounds Zulip ships in
// static/audio/notification_sounds (the file names without extension). The
// value "none" is accepted in addition to the configured sounds.
var zulipNotificationSounds = []string{
	"ascend", "beep_boop", "bink", "bright", "brlip", "chime", "deep tom",
	"ding", "double tap", "down", "dry bongos", "dutdut", "fast ascend",
	"flute", "friendly", "kick roll", "loud tintong", "metallic snare", "pan",
	"practicechat", "shaker", "simple", "stairs", "subtle", "swish", "tintong",
	"up", "wood block", "zaping", "zing", "zulip",
}
