package audit

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// Rule describes one audit rule. IDs are stable: allow-lists, inline
// suppressions, SARIF consumers and CI configs depend on them.
type Rule struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	// Summary is the one-line explanation shown with every finding.
	Summary string `json:"summary"`
	// Fix says what the author should do instead.
	Fix string `json:"fix"`

	// A keyword rule is checked by its pattern on each line (or window
	// of a long line) where every group of its keywords has a member;
	// rules without keywords have matchers of their own in this package.
	keywords [][]string
	pattern  lazyPattern
	// shellPattern, when set, is also tried in shell scripts.
	shellPattern lazyPattern
	// more are further checks reported as this rule: each is tried only
	// where its own keywords meet, so a rule's rarer spellings cost
	// nothing on the lines that only hold its common words.
	more  []check
	scope scope
	// accept, when set, rejects a pattern match (a placeholder key, a
	// redirect to /dev/null).
	accept func(match string) bool
	// denied, when set, makes the rule apply only to skills whose
	// declared permissions deny what it detects.
	denied func(p *perms) bool
	// injection marks prompt-injection rules: a match inside an HTML
	// comment becomes prompt-injection-hidden, a quoted example
	// prompt-injection-mention.
	injection bool
}

// check is one set of keyword groups and the pattern that confirms a
// finding where they meet (see Rule.more).
type check struct {
	keywords     [][]string
	pattern      lazyPattern
	shellPattern lazyPattern
	// scope, when set, narrows the files the check reads.
	scope scope
}

// scope says which files a rule reads.
type scope uint8

const (
	inMarkdown scope = 1 << iota // SKILL.md, references, other Markdown and plain text
	inScript                     // scripts: by extension, shebang or tool entrypoint
	inData                       // other text: JSON, YAML, config
	inText     = inMarkdown | inScript | inData
)

// Rules returns every audit rule, in documentation order.
func Rules() []Rule { return slices.Clone(rules) }

// RuleByID returns the rule with the given ID.
func RuleByID(id string) (Rule, bool) {
	i := slices.IndexFunc(rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return rules[i], true
}

// lazyRE is a regular expression compiled on first use: compiling the
// table's patterns costs milliseconds, and every skillpm command links
// this package, so compiling them at init would slow down every start.
type lazyRE func() *regexp.Regexp

func re(s string) lazyRE {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(s) })
}

// A pattern is one regular expression compiled as several: Go matches a
// program of up to 500 instructions on a short line with its fast
// backtracker and a larger one with its NFA, several times slower. A
// rule's pattern is a top-level alternation of many cases, so pat
// splits it into groups of alternatives small enough for the
// backtracker, and FindIndex returns the leftmost match of any, the
// earlier group first on a tie: what the whole expression would match.
type pattern []*regexp.Regexp

// lazyPattern is a pattern compiled on first use (see lazyRE).
type lazyPattern func() pattern

// maxPart is the most instructions in one part of a pattern: small
// enough that lines and windows of about 1 KiB (256 Kib / instructions)
// stay within the backtracker's reach.
const maxPart = 200

func pat(s string) lazyPattern {
	return sync.OnceValue(func() pattern { return splitPattern(s, maxPart) })
}

// splitPattern compiles s in parts of at most max instructions where it
// can.
func splitPattern(s string, maxPart int) pattern {
	{
		whole := regexp.MustCompile(s)
		tree, err := syntax.Parse(s, syntax.Perl)
		if err != nil || tree.Op != syntax.OpAlternate || progSize(tree) <= maxPart {
			return pattern{whole}
		}
		var p pattern
		var group []*syntax.Regexp
		flush := func() {
			if len(group) > 0 {
				p = append(p, regexp.MustCompile((&syntax.Regexp{Op: syntax.OpAlternate, Sub: group}).String()))
				group = nil
			}
		}
		for _, sub := range tree.Sub {
			if len(group) > 0 && progSize(&syntax.Regexp{Op: syntax.OpAlternate, Sub: append(slices.Clip(group), sub)}) > maxPart {
				flush()
			}
			group = append(group, sub)
		}
		flush()
		return p
	}
}

func progSize(r *syntax.Regexp) int {
	prog, err := syntax.Compile(r.Simplify())
	if err != nil {
		return math.MaxInt
	}
	return len(prog.Inst)
}

// FindIndex returns the leftmost match of the pattern in b, as
// regexp.FindIndex does.
func (p pattern) FindIndex(b []byte) []int {
	var best []int
	for _, r := range p {
		if loc := r.FindIndex(b); loc != nil && (best == nil || loc[0] < best[0]) {
			best = loc
		}
	}
	return best
}

// kw makes keyword groups from comma-separated lists: a line is checked
// when it holds a keyword of every group (at most 8 groups).
func kw(groups ...string) [][]string {
	out := make([][]string, len(groups))
	for i, g := range groups {
		out[i] = strings.Split(g, ",")
	}
	return out
}

// Rule IDs that matchers outside the table emit.
const (
	ruleBidi        = "unicode-bidi"
	ruleInvisible   = "unicode-invisible"
	ruleTags        = "unicode-tags"
	ruleHomoglyph   = "homoglyph"
	ruleHidden      = "prompt-injection-hidden"
	ruleMention     = "prompt-injection-mention"
	ruleEntropy     = "high-entropy-blob"
	ruleExecutable  = "executable-binary"
	ruleOpaque      = "opaque-binary"
	ruleTooLarge    = "skill-too-large"
	ruleScanLimit   = "scan-limit"
	ruleSymlink     = "symlink-outside"
	ruleOverbroad   = "overbroad-permission"
	ruleSecret      = "committed-secret"
	ruleNetwork     = "undeclared-network"
	ruleSubprocess  = "undeclared-subprocess"
	ruleWrite       = "undeclared-write"
	ruleCredentials = "credential-read"
)

var rules = []Rule{
	// Text the agent reads but the user does not see.
	{ID: ruleBidi, Severity: High,
		Summary: "bidirectional control character: the text shows in a different order than it is read",
		Fix:     "remove the U+202A-U+202E / U+2066-U+2069 characters"},
	{ID: ruleInvisible, Severity: High,
		Summary: "invisible character inside text: words the user reads differ from what the agent reads",
		Fix:     "remove zero-width and filler characters (U+200B, U+2060-U+2064, U+FEFF, U+3164, ...)"},
	{ID: ruleTags, Severity: Critical,
		Summary: "Unicode tag or variation-selector characters encode hidden text",
		Fix:     "remove the U+E0000-U+E007F / U+E0100-U+E01EF characters"},
	{ID: ruleHomoglyph, Severity: High,
		Summary: "a word mixes Latin letters with Cyrillic or Greek look-alikes",
		Fix:     "write the word in one script"},

	// Instructions aimed at the agent.
	{ID: "prompt-injection-override", Severity: High, injection: true,
		Summary:  "tells the agent to ignore its prior instructions",
		Fix:      "remove the instruction; a skill adds to the agent's instructions and never replaces them",
		keywords: kw("ignore,disregard,forget,override,you are now,system prompt", "instruction,prompt,rule,direction,guideline,message,context,everything,developer mode,dan,jailbr,unrestricted,unfiltered"),
		pattern: pat(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+|your\s+|every\s+|of\s+)*(previous|prior|above|earlier|preceding|former|system|original|developer|safety)\s+(instructions?|prompts?|rules|directions|guidelines|messages|context)\b` +
			`|(?i)\bforget\s+(everything|all)\s+(you('ve|\s+have)?\s+(been\s+told|learned)|above|before)` +
			`|(?i)\byou\s+are\s+now\s+(in\s+)?(dan|developer\s+mode|jailbroken|unrestricted|unfiltered)\b` +
			`|(?i)\bnew\s+system\s+prompt\s*:`),
		more: []check{{keywords: kw("ignore,disregard,forget", "everything,anything"),
			pattern: pat(`(?i)\b(ignore|disregard|forget)\s+(everything|anything)\s+(above|before|previously|prior|so\s+far|(that\s+)?you\s+(were|have\s+been|'ve\s+been)\s+told)\b`)}},
		scope: inText},
	{ID: "prompt-injection-conceal", Severity: High, injection: true,
		Summary:  "tells the agent to hide what it does from the user",
		Fix:      "remove the instruction; everything a skill makes the agent do must be visible to the user",
		keywords: kw("tell,inform,notify,alert,mention,reveal,disclose,show,without,hide,conceal,silently,must not,should not,must never,should never,secret from", "user,silently"),
		pattern: pat(`(?i)\b(do\s+not|don'?t|never)\s+(tell|inform|notify|alert)\s+(the\s+)?user\s+(about|that|what|of|when|where)\b` +
			`|(?i)\b(do\s+not|don'?t|never)\s+(mention|reveal|disclose|show)\s+(this|these|that|it|them|any\s+of\s+this)(\s+(step|action|command|instruction|file)s?)?\s+to\s+(the\s+)?user` +
			`|(?i)\bwithout\s+(telling|informing|notifying|alerting|showing)\s+(the\s+)?user` +
			`|(?i)\b(hide|conceal)\b[^\n.]*\bfrom\s+(the\s+)?user` +
			`|(?i)\bsilently\s+(run|execute|send|upload|install|download|delete|post|copy|exfiltrate)` +
			`|(?i)\b(the\s+)?user\s+(must|should)\s+(not|never)\s+(know|see|notice|find\s+out)` +
			`|(?i)\bkeep\s+(this|it)\s+(a\s+)?secret\s+from\s+(the\s+)?user`), scope: inText},
	{ID: "prompt-injection-safety", Severity: High, injection: true,
		Summary:  "tells the agent to disable its safety checks, sandbox or confirmations",
		Fix:      "remove the instruction; declare what the skill needs in permissions and let the host ask",
		keywords: kw("disable,turn off,bypass,circumvent,ignore,deactivate,dangerously-,without asking,not ask,never ask,t ask", "guardrail,sandbox,filter,safety,security,permission,confirmation,approval,dangerously-"),
		pattern: pat(`(?i)\b(disable|turn\s+off|bypass|circumvent|ignore|deactivate)\s+(all\s+|the\s+|any\s+|your\s+|its\s+)*(guardrails?|sandbox(ing)?|content\s+filter(s|ing)?|(safety|security)\s+(checks?|measures|restrictions|rules|guidelines|features|filters|prompts|controls|policies|protections|settings|warnings)|(permission|confirmation|approval)\s+(checks?|prompts?|requests?|dialogs?))` +
			`|(?i)--dangerously-(skip-permissions|bypass-approvals-and-sandbox)` +
			`|(?i)\b(without\s+asking|do\s+not\s+ask|don'?t\s+ask|never\s+ask)\s+(the\s+user\s+)?(for\s+)?(confirmation|permission|approval)`), scope: inText},
	{ID: "prompt-injection-exfil", Severity: Critical, injection: true,
		Summary:  "tells the agent to send the user's secrets or conversation somewhere",
		Fix:      "remove the instruction",
		keywords: kw("send,upload,post,forward,exfiltrate,transmit,leak,copy,email", "key,credential,secret,token,password,env,cookie,conversation,chat history,system prompt,exfiltrate", "http,url,endpoint,server,webhook,address,@"),
		pattern: pat(`(?i)\b(send|upload|post|forward|exfiltrate|transmit|leak|copy|email)\b[^\n]*\b(all|every|any|the\s+user'?s|the\s+contents\s+of|the\s+full|the\s+entire|their|your)\b[^\n]*\b(api[\s_-]?keys?|credentials|secrets?|tokens?|passwords?|private\s+keys?|ssh\s+keys?|env(ironment)?\s+variables|\.env|cookies|conversation|chat\s+history|system\s+prompt)\b[^\n]*\b(to|at)\s+(https?://|[\w.+-]+@[\w-]+\.[\w.]+|(the\s+|this\s+)?(following\s+)?(url|endpoint|server|webhook|address))` +
			`|(?i)\bexfiltrate\b[^\n]*\b(to|at)\s+(https?://|(the\s+|this\s+)?(url|endpoint|server|webhook))`),
		// An image the agent renders sends its URL, and what the
		// template fills into it, to the image's host.
		more: []check{{keywords: kw("![", "http"),
			pattern: pat(`(?i)!\[[^\]\n]*\]\(\s*https?://[^)\s]*[?&/=][\w.-]*=?(\{\{?|\$\{|<|\[|%s)\s*[\w .-]*(conversation|chat|history|messages?|secrets?|tokens?|api[_ -]?keys?|passwords?|credentials?|env|context|system[_ -]?prompt|memory|summary|user[_ -]?data)`)}},
		scope: inText},
	{ID: ruleHidden, Severity: Critical,
		Summary: "an instruction aimed at the agent is hidden in an HTML comment",
		Fix:     "remove the comment; the user sees rendered Markdown, the agent reads the comment"},
	{ID: ruleMention, Severity: Low,
		Summary: "quotes a prompt-injection phrase as an example (not an instruction)",
		Fix:     "nothing to do if the skill only explains the phrase; otherwise remove it"},
	{ID: "host-command", Severity: High,
		Summary:  "!`command` line: some agents run it on the host when the skill loads, before anyone reviews it",
		Fix:      "put the command in a script the skill declares, so it runs only when asked and under its permissions",
		keywords: kw("!`"),
		pattern:  pat("(^|[\\s(>])!`[^`\n]+`"), scope: inMarkdown},

	// What scripts and commands do.
	{ID: "download-exec", Severity: Critical,
		Summary:  "downloads code and runs it in one step, unreviewed and unpinned",
		Fix:      "vendor the script into the skill, or download it, check its digest, then run it",
		keywords: kw("curl,wget,iwr,irm,invoke-webrequest,invoke-restmethod,downloadstring", "|,$(,<(,iex,invoke-expression"),
		pattern: pat(`(?i)\b(curl|wget)\b[^\n;]*?[^|\n;]\|\s*(sudo\s+(-\S+\s+)*)?(\S*/)?(env\s+)?(\S*/)?(ba|z|k|da|fi)?sh\b` +
			`|(?i)\b(curl|wget)\b[^\n;]*?[^|\n;]\|\s*(sudo\s+)?(\S*/)?(python[0-9.]*|node|perl|ruby)\s*(-\s*)?(["'\x60)]|$)` +
			`|(?i)\b(ba|z|k)?sh\s+(-c\s+)?["']?\$\(\s*(curl|wget)\b` +
			`|(?i)\b(ba|z|k)?sh\s+<\(\s*(curl|wget)\b` +
			`|(?i)\b(iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n]*\|\s*(iex|invoke-expression)\b` +
			`|(?i)\b(iex|invoke-expression)\b\s*\(*\s*(\(?\s*new-object\s+(system\.)?net\.webclient\s*\)?\.downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod)\b`),
		more: []check{
			{keywords: kw("curl,wget", "eval,source,. <(,<<<,`curl,`wget"),
				pattern: pat(`(?i)\b((ba|z|k)?sh|eval)\s+(-c\s+)?["']?(\$\(|\x60)\s*(curl|wget)\b` +
					`|(?i)(^|[\s;&|({])(source|\.)\s+<\(\s*(curl|wget)\b` +
					`|(?i)\b((ba|z|k)?sh|source)\b[^\n]*<<<\s*["']?(\$\(|\x60)\s*(curl|wget)\b`)},
			// Downloaded to a file and run at once, with no check between.
			{keywords: kw("curl,wget", "&& sh,&& bash,&& sudo,&&sh,; sh,; bash,; sudo,;sh"),
				pattern: pat(`(?i)\b(curl|wget)\b[^\n]*\s(-[a-zA-Z]*[oO]|--output(-document)?)[\s=]*["']?([^\s"';&|]+)["']?[^\n]*(&&|;)\s*(sudo\s+)?(ba|z|k)?sh\s+["']?\S*\b`)},
			{keywords: kw("scriptblock", "iwr,irm,invoke-webrequest,invoke-restmethod,downloadstring"),
				pattern: pat(`(?i)\[scriptblock\]::create\([^\n]*\b(iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b`)},
			// Python's and JavaScript's own downloads, run as code.
			{keywords: kw("exec(,eval(,function(", "requests.get,httpx.get,urlopen,fetch(,axios.get"),
				pattern: pat(`\b(exec|eval|Function)\s*\([^\n]*\b(requests\.get|httpx\.get|urlopen|fetch|axios\.get)\s*\(`)},
		},
		accept: noDigestCheck, scope: inText},

	{ID: "runtime-install-url", Severity: High,
		Summary:  "installs a package from a URL or git at run time, outside any lock or review",
		Fix:      "declare pinned dependencies (implementation.dependencies) or vendor the code",
		keywords: kw("pip,npm,pnpm,yarn,npx", "http://,https://,git+,github:,git://"),
		pattern: pat(`(?i)\b(pip[0-9.]*|uv\s+pip|python[0-9.]*\s+-m\s+pip)\s+install\b[^\n]*?\s["']?(git\+|https?://)` +
			`|(?i)\b(npm|pnpm|yarn)\s+(install|i|add)\b[^\n]*?\s["']?(git\+|https?://|github:|git://)` +
			`|(?i)\bnpx\s+(-y\s+|--yes\s+)?["']?(https?://|github:|git\+)`), scope: inText},
	{ID: "decode-exec", Severity: Critical,
		Summary:  "decodes an encoded blob and executes it: the code that runs cannot be read",
		Fix:      "ship the code as readable source",
		keywords: kw("base64,atob,b64decode,decodebytes,decodestring,frombase64string,-e ,-ec ,-enc,-encodedcommand", "|,eval,exec,function,system,popen,compile,powershell"),
		pattern: pat(`(?i)\bbase64\s+(-[a-z]*d[a-z]*|--decode)\b[^\n]*\|\s*(sudo\s+)?(\S*/)?(ba|z|k)?sh\b` +
			`|(?i)\bbase64\s+(-[a-z]*d[a-z]*|--decode)\b[^\n]*\|\s*(sudo\s+)?(\S*/)?(python[0-9.]*|node|perl)\s*(-\s*)?(["'\x60)]|$)` +
			`|(?i)\beval\s+["']?\$\([^)\n]*\bbase64\s+(-[a-z]*d[a-z]*|--decode)` +
			`|(?i)\b(eval|exec|execSync|system|popen|Function|compile)\s*\(\s*[^\n]*\b(atob|b64decode|decodebytes|decodestring|frombase64string)\s*\(` +
			`|(?i)\b(eval|exec|Function)\s*\(\s*[^\n]*Buffer\.from\([^)\n]*["'](base64|base64url)["']` +
			`|(?i)\bpowershell(\.exe)?\b[^\n]*\s-(e|ec|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}`),
		more: []check{
			{keywords: kw("fromhex,unhexlify,a2b_,decompress,marshal.loads,codecs.decode,fromcharcode,unescape,b32decode,b16decode,b85decode,a85decode,buffer.from",
				"eval,exec,function,system,popen,compile"),
				pattern: pat(`(?i)\b(eval|exec|execSync|system|popen|Function|compile)\s*\(\s*[^\n]*\b(b(16|32|85)decode|a85decode|fromhex|unhexlify|a2b_\w+|decompress|marshal\.loads|codecs\.decode|fromCharCode|unescape)\s*\(` +
					`|(?i)\b(eval|exec|Function)\s*\(\s*[^\n]*Buffer\.from\([^)\n]*["']hex["']`)},
			{keywords: kw("xxd", "|,$("),
				pattern: pat(`(?i)\bxxd\s+(-\S+\s+)*-[a-z]*r[a-z]*\b[^\n]*\|\s*(sudo\s+)?(\S*/)?(ba|z|k)?sh\b` +
					`|(?i)\beval\s+["']?\$\([^)\n]*\bxxd\s+(-\S+\s+)*-[a-z]*r`)},
			{keywords: kw("\\x", "printf,echo -e", "|"),
				pattern: pat(`(?i)\b(printf|echo\s+-e)\s+["']?(\\x[0-9a-f]{2}|\\[0-7]{3}){4,}[^\n]*\|\s*(sudo\s+)?(\S*/)?(ba|z|k)?sh\b`)},
		},
		scope: inText},

	{ID: ruleEntropy, Severity: Medium,
		Summary: "long high-entropy literal: an encoded or encrypted payload the reader cannot review",
		Fix:     "ship readable source; keep data files as data, with a name that says what they are"},
	{ID: ruleCredentials, Severity: High,
		Summary: "reads a credential location (SSH keys, cloud credentials, .env, browser profiles, keychains)",
		Fix:     "take what the skill needs from a declared secret (secrets: in the frontmatter), never from the user's files",
		keywords: kw(".ssh,.aws,gcloud,.kube,.docker,.netrc,.git-credentials,.gnupg,.azure,id_rsa,id_ed25519,id_ecdsa,id_dsa," +
			"login data,logins.json,key3.db,key4.db,cookies.sqlite,local state,web data,firefox,keychain,find-generic-password,find-internet-password,secret-tool," +
			" .env,'.env,\".env,/.env,`.env,(.env"),
		pattern: pat(`(?i)(~|\$home|\$\{home\}|%userprofile%|expanduser\(\s*["']~|homedir\(\)|path\.home\(\)|os\.homedir\(\))[^\n]*?[/\\]?\.(ssh|aws|kube|gnupg|azure|netrc|git-credentials|docker[/\\]config\.json|config[/\\]gcloud)\b` +
			`|(?i)\bid_(rsa|ed25519|ecdsa|dsa)([^.\w]|$)` +
			`|(?i)\.aws[/\\](credentials|config)\b|\bapplication_default_credentials\.json\b|\.config[/\\]gcloud\b` +
			`|(?i)(google[/\\ ]chrome|google-chrome|chromium|bravesoftware|microsoft[/\\]edge)[^\n]*(login data|cookies|local state|web data)` +
			`|(?i)\b(logins\.json|key[34]\.db|cookies\.sqlite)\b|\.mozilla[/\\]firefox|firefox[/\\]profiles` +
			`|(?i)\bsecurity\s+(find-generic-password|find-internet-password|dump-keychain)\b|\blogin\.keychain|library[/\\]keychains|\bsecret-tool\s+lookup\b` +
			`|(?i)\b(cat|less|more|head|tail|source|open|readfile|readfilesync|read_text|path|dotenv_values)\b\s*\(?\s*["']?(\./|~/|\$home/)?\.env(\.\w+)?(["'\x60)]|\s|$)`),
		// Token files of package registries, vaults, CLIs and agents: what
		// a poisoned tool description asks the agent to read and pass on.
		more: []check{{keywords: kw(".npmrc,.pypirc,.vault-token,.claude.json,mcp.json,hosts.yml,credentials.tfrc,credentials.toml,.cargo,.gem"),
			pattern: pat(`(?i)(~|\$home|\$\{home\}|%userprofile%|homedir\(\)|home\(\)|expanduser\()[^\n]*?[/\\'"\s]\.(npmrc|pypirc|vault-token|claude\.json|config[/\\]gh[/\\]hosts\.yml|terraform\.d[/\\]credentials\.tfrc\.json|cargo[/\\]credentials(\.toml)?|gem[/\\]credentials|cursor[/\\]mcp\.json|codeium[/\\]windsurf[/\\]mcp_config\.json)\b`)}},
		scope: inText},
	{ID: "exfiltration", Severity: Critical,
		Summary:  "sends environment variables or credential files to the network",
		Fix:      "send only the data the tool's purpose needs, to a host declared in permissions.network.outbound",
		keywords: kw("curl,wget,nc ,ncat,netcat,requests.,httpx.,session.,client.,urlopen,fetch,axios,got(,got.post,json.dumps,data=,json=,params=,json.stringify", "env,set |,set|,export -p,.ssh,.aws,gcloud,.kube,.docker,.netrc,.git-credentials,id_rsa,id_ed25519,credentials"),
		pattern: pat(`(?i)\b(env|printenv|set|export\s+-p)\s*\|\s*(curl|wget|nc|ncat|netcat)\b` +
			`|(?i)\b(curl|wget)\b[^\n]*(\$\(\s*(env|printenv)\s*\)|\x60(env|printenv)\x60)` +
			`|(?i)\b(cat|tar|zip|base64|gpg|cp)\b[^\n|]*(\.ssh|\.aws|\.config/gcloud|\.kube|\.docker/config|\.netrc|\.git-credentials|\.env\b|id_rsa|id_ed25519|credentials)[^\n|]*\|\s*(curl|wget|nc|ncat|netcat)\b` +
			`|(?i)\bcurl\b[^\n]*\s(-d|--data(-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s*["']?(\w+=)?@["']?[^\s"']*(\.ssh|\.aws|gcloud|\.kube|\.netrc|\.git-credentials|\.env\b|id_rsa|id_ed25519|\.docker)` +
			`|(?i)\b(requests|httpx|session|client)\.(post|put|patch|get|request)\s*\([^\n]*\bos\.environ\b` +
			`|(?i)\burlopen\s*\([^\n]*\bos\.environ\b` +
			`|(?i)\bjson\.dumps\(\s*(dict\()?\s*os\.environ\s*\)` +
			`|(?i)\b(data|json|params)\s*=\s*(dict\(\s*)?os\.environ\s*(\)|,)` +
			`|JSON\.stringify\(\s*process\.env\s*\)` +
			`|(?i)\b(fetch|axios(\.(post|put|get))?|got(\.post)?)\s*\([^\n]*\bprocess\.env\s*[,)}]`),
		// Through DNS: the data is the name looked up.
		more: []check{{keywords: kw("nslookup,dig ,host ,ping ,resolve-dnsname", "$(,`"),
			pattern: pat(`(?i)\b(nslookup|dig|host|ping|resolve-dnsname)\s+[^\n]*(\$\(|\x60)\s*(cat|env|printenv|base64|xxd|od|whoami|id\b|echo\s+["']?\$\{?\w*(key|token|secret|pass))`)}},
		scope: inText},

	{ID: "reverse-shell", Severity: Critical,
		Summary: "hands a shell to a remote host (a reverse or bind shell): whoever is at the other end runs commands as the user",
		Fix:     "remove it; no skill needs to give a network peer a shell",
		// "nc " alone would hit every "async ", so netcat is looked for
		// after what can precede a command.
		keywords: kw("/dev/tcp,/dev/udp, nc ,\tnc ,\nnc ,(nc ,|nc ,;nc ,`nc ,ncat,netcat,socat,telnet,dup2,mkfifo,fsockopen,tcpclient,use socket,tcpsocket"),
		pattern: pat(`(?i)/dev/(tcp|udp)/[^\s/]+/\d+[^\n]*([0-2]?[<>]&\s*[0-2]\b)` +
			`|(?i)\b(ba|z|k|da)?sh\s+-i\b[^\n]*[<>]&?\s*/dev/(tcp|udp)/` +
			`|(?i)\bexec\s+\d+<>\s*/dev/(tcp|udp)/` +
			`|(?i)\b(nc|ncat|netcat)\b[^\n|;]*\s(-[a-z]*[ec]\s*|--(sh-)?exec[\s=]+)["']?\S*\b((ba|z|k|da)?sh|cmd(\.exe)?|powershell(\.exe)?|pwsh|python[0-9.]*)\b` +
			`|(?i)\b(nc|ncat|netcat|telnet|openssl\s+s_client)\b[^\n]*\|\s*(\S*/)?(ba|z|k|da)?sh\b(\s+-i)?[^\n]*\|\s*(nc|ncat|netcat|telnet|openssl\s+s_client)\b` +
			`|(?i)\bmkfifo\b[^\n]*\|\s*(\S*/)?(ba|z|k|da)?sh\b[^\n]*\|\s*(nc|ncat|netcat|telnet|openssl)\b` +
			`|(?i)\bsocat\b[^\n]*\b(exec|system):[^\n]*\b((ba|z|k|da)?sh|cmd|powershell|python[0-9.]*)\b` +
			`|\bos\.dup2\(\s*[\w.]+\.fileno\(\)\s*,\s*[012]\s*\)` +
			`|(?i)\bfsockopen\s*\([^\n]*\b(exec|shell_exec|system|passthru|proc_open|popen)\s*\(` +
			`|(?i)\buse\s+socket\b[^\n]*\bexec\b|\btcpsocket\.(new|open)\b[^\n]*\b(exec|spawn|system)\b` +
			`|(?i)\bnet\.sockets\.tcpclient\b[^\n]*\b(iex|invoke-expression)\b`), scope: inText},
	{ID: "persistence", Severity: High,
		Summary:  "makes code run again later, outside the skill: cron, shell start-up files, login items, services, SSH keys, or the agent's own settings",
		Fix:      "remove it; a skill runs when the agent calls it and never installs itself anywhere else",
		keywords: kw("crontab,/cron"),
		pattern:  pat(`(?i)(\|\s*|^\s*|[;&]\s*)crontab\s+(-u\s+\S+\s+)?(-(\s|$|["')])|[^-\s]\S*)|(>|\btee\b|\bcp\b|\bmv\b|\bln\b)[^\n]*\s["']?/(etc/cron|var/spool/cron)`),
		more: []check{
			// In prose, setup notes add an export or a tool's init line to
			// the user's shell profile; anything else appended there is
			// persistence.
			{keywords: kw(".bashrc,.bash_profile,.bash_login,.profile,.zshrc,.zprofile,.zshenv,.zlogin"), scope: inMarkdown | inData,
				pattern: pat(`(?i)\b(echo|printf)\s+(-\w+\s+)?["']([^ep.#"'\s]|e[^xv]|ex[^p]|ev[^a]|p[^a]|pa[^t])[^\n]*>>?\s*["']?(~|\$home|\$\{home\})/\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin)\b`)},
			{keywords: kw(".bashrc,.bash_profile,.bash_login,.profile,.zshrc,.zprofile,.zshenv,.zlogin,config.fish,/etc/sudoers,nopasswd"), scope: inScript,
				pattern: pat(`(?i)(>>?\s*|\btee\s+(-a\s+)?|\b(cp|mv|ln\s+-s\w*)\s+\S+\s+)["']?(~|\$home|\$\{home\})/\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|config/fish/config\.fish)\b` +
					`|(?i)>>?\s*["']?/etc/(profile|bash\.bashrc|zshrc|sudoers)\b|\btee\s+(-a\s+)?/etc/(profile|bash\.bashrc|zshrc|sudoers)\b|\bnopasswd\s*:\s*all\b` +
					`|(?i)\b(open|appendfile|appendfilesync|writefile|writefilesync)\s*\([^\n]*\.(bashrc|bash_profile|profile|zshrc|zprofile|zshenv)\b[^\n]*(["'][aw]\+?["']|\)\s*;?\s*$)`)},
			{keywords: kw("authorized_keys"),
				pattern: pat(`(?i)(>>?\s*|\btee\s+(-a\s+)?|\b(open|appendfile\w*|writefile\w*)\s*\([^\n]*)["']?\S*authorized_keys\b`)},
			{keywords: kw("launchagents,launchdaemons,launchctl,systemd,systemctl,schtasks,scheduledtask,currentversion\\run"),
				pattern: pat(`(?i)library/launch(agents|daemons)/|\blaunchctl\s+(load|bootstrap|submit|enable)\b` +
					`|(?i)\.config/systemd/user\b|/etc/systemd/system/\S|\bsystemctl\s+(--user\s+)?enable\b` +
					`|(?i)\bschtasks(\.exe)?\s+/create\b|\bregister-scheduledtask\b|\\currentversion\\run(once)?\b`)},
			// The user's own agent: a script that writes its settings,
			// hooks or instructions; in prose, telling the agent to write
			// the instructions every later session reads (asking the user
			// to set an option in their config is fine).
			{keywords: kw(".claude,.codex,.cursor,.gemini,.windsurf,opencode"), scope: inScript,
				pattern: pat(`(?i)\b(append|add|write|insert|put|copy|save|tee|cp|mv|ln|writefile\w*|appendfile\w*|write_text|open)\b[^\n]*(~|\$home|\$\{home\}|%userprofile%|homedir\(\)|home\(\)|expanduser\()[^\n]*\.(claude|codex|cursor|gemini|windsurf|config/opencode)\b[^\n]*\b(settings(\.local)?\.json|claude\.md|agents\.md|gemini\.md|config\.toml|mcp\.json|hooks|rules)\b`)},
			{keywords: kw(".claude,.codex,.gemini,.config/opencode", "claude.md,agents.md,gemini.md"), scope: inMarkdown | inData,
				pattern: pat(`(?i)\b(append|add|write|insert|put|copy|save)\b[^\n]*(~|\$home|\$\{home\}|%userprofile%)[/\\]\.(claude|codex|gemini|config[/\\]opencode)[/\\](claude|agents|gemini)\.md\b`)},
		},
		scope: inText},

	{ID: "destructive-command", Severity: High,
		Summary:  "deletes or overwrites what is not the skill's: the home folder, the root, system folders or a disk",
		Fix:      "remove it; delete only files the skill created, by their own paths",
		keywords: kw("rm -,--no-preserve-root,of=/dev/,mkfs,wipefs,shred,:(),777,rd /,rmdir /,del /,remove-item"),
		pattern: pat(`(?i)\brm\s+(-\S+\s+)*-[a-z]*r[a-z]*\s+([^\n;&|]*\s)?["']?(/|/\*|~/?|~/\*|\$home/?|\$\{home\}/?|\$home/\*|/(etc|usr|bin|sbin|boot|var|home|root|lib|lib64|opt|sys|dev|proc|system|library|users|applications)/?)["']?(\s|$|;|&|\|)` +
			`|(?i)--no-preserve-root\b` +
			`|(?i)\bdd\b[^\n]*\bof=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk)` +
			`|(?i)\b(mkfs(\.\w+)?|wipefs|shred)\s+[^\n]*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk)` +
			`|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:` +
			`|(?i)\bchmod\s+(-\S+\s+)*-[a-z]*r[a-z]*\s+(-\S+\s+)*[0-7]*777\s+["']?(/|~/?|\$home/?)["']?(\s|$)` +
			`|(?i)\b(rd|rmdir|del)\s+(/[sqf]\s+)+["']?[a-z]:\\?["']?(\s|$)` +
			`|(?i)\bremove-item\b[^\n]*-recurse\b[^\n]*\s["']?([a-z]:\\?|\$env:userprofile|\$home|~)["']?(\s|$)`), scope: inText},

	// What the code does against what the skill declares.
	{ID: ruleNetwork, Severity: High,
		Summary:  "a script uses the network, but the skill's permissions declare no outbound hosts",
		Fix:      "declare the hosts in permissions.network.outbound, or remove the network call",
		keywords: kw("requests,httpx,aiohttp,urllib,socket,http.client,http,net,axios,fetch,undici,got,curl,wget,/dev/tcp,nc ,ncat"),
		pattern: pat(`\bimport\s+(requests|httpx|aiohttp|urllib3|socket|http\.client)\b|\bfrom\s+(urllib|urllib3|requests|httpx|aiohttp|http\.client|socket)\b|\burllib\.request\b` +
			`|\brequire\(\s*["'](node:)?(https?|net|axios|node-fetch|got|undici)["']\s*\)|\bfrom\s+["'](node:)?(https?|net|axios|node-fetch|undici|got)["']|(^|[^.\w])fetch\s*\(`),
		shellPattern: pat(`(^\s*|[;&|(]\s*|\$\(\s*|\b(sudo|then|do|exec)\s+)(curl|wget|nc|ncat)\s|/dev/tcp/`),
		scope:        inScript, denied: func(p *perms) bool { return p.noNetwork }},
	{ID: ruleSubprocess, Severity: High,
		Summary:  "a script starts subprocesses, but the skill's permissions do not allow them",
		Fix:      "set permissions.processes.allow_subprocess: true, or remove the call",
		keywords: kw("subprocess,os.system,os.popen,os.exec,os.spawn,pty.spawn,child_process,execsync,spawnsync,execfilesync,deno.run,deno.command"),
		pattern: pat(`\bimport\s+subprocess\b|\bfrom\s+subprocess\b|\bsubprocess\.\w+|\bos\.(system|popen|exec[lv]p?e?|spawn\w*)\s*\(|\bpty\.spawn\b` +
			`|\brequire\(\s*["'](node:)?child_process["']\s*\)|\bfrom\s+["'](node:)?child_process["']|\b(execSync|spawnSync|execFileSync)\s*\(|\bDeno\.(run|Command)\b`),
		scope: inScript, denied: func(p *perms) bool { return p.noSubprocess }},
	{ID: ruleWrite, Severity: Medium,
		Summary:  "a script writes files, but the skill's permissions declare no writable paths",
		Fix:      "declare the paths in permissions.filesystem.write, or remove the write",
		keywords: kw("open(,write_text,write_bytes,shutil.,os.remove,os.unlink,os.rename,os.replace,os.makedirs,os.mkdir,os.rmdir,writefile,appendfile,fs.mkdir,fs.rm,fs.unlink,fs.rename,copyfile,>,rm ,mv ,cp ,mkdir ,touch ,tee ,truncate "),
		pattern: pat(`\bopen\([^)\n]*,\s*(mode\s*=\s*)?["'][wax]b?\+?["']|\.write_(text|bytes)\(|\bshutil\.(copy\w*|move|rmtree)\(|\bos\.(remove|unlink|rename|replace|makedirs|mkdir|rmdir)\(` +
			`|\bfs\.(promises\.)?(writeFile|appendFile|mkdir|rm|rmdir|unlink|rename|copyFile)(Sync)?\(|\b(writeFile|appendFile)(Sync)?\(`),
		shellPattern: pat(`(^\s*|[;&|(]\s*|\b(sudo|then|do|exec)\s+)(rm|mv|cp|mkdir|touch|tee|truncate)\s|[^\d&<>=\-]>>?\s*["']?[\w./$~][^\s;&|)]*`),
		accept:       func(m string) bool { return !strings.Contains(m, "/dev/") && !strings.Contains(m, "&") },
		scope:        inScript, denied: func(p *perms) bool { return p.noWrite }},
	{ID: ruleOverbroad, Severity: Medium,
		Summary: "permissions grant everything (**/*, *, / or any host) instead of what the skill needs",
		Fix:     "list the paths and hosts the skill needs"},

	// What the skill carries.
	{ID: ruleSecret, Severity: Critical,
		Summary:  "a committed secret (API key, token or private key)",
		Fix:      "remove it, revoke it, and declare the variable in secrets: so the user supplies it",
		keywords: kw("akia,asia,ghp_,gho_,ghu_,ghs_,ghr_,github_pat_,xox,k_live_,sk-,aiza,private key"),
		pattern: pat(`\b(AKIA|ASIA)[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}|\bxox[baprs]-[A-Za-z0-9-]{10,}|\b[sr]k_live_[A-Za-z0-9]{20,}` +
			`|\bsk-ant-[A-Za-z0-9_-]{20,}|\bsk-(proj-)?[A-Za-z0-9_-]{32,}|\bAIza[0-9A-Za-z_-]{35}\b|-----BEGIN ((RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----`),
		accept: notPlaceholder, scope: inText},
	{ID: ruleExecutable, Severity: High,
		Summary: "a compiled executable or bytecode without reviewable source",
		Fix:     "ship the source and build it, or document where the binary comes from and its digest"},
	{ID: ruleOpaque, Severity: Low,
		Summary: "a binary file that is not a known image, document or font",
		Fix:     "check what it is; ship data in a reviewable format where possible"},
	{ID: ruleSymlink, Severity: High,
		Summary: "a symbolic link that points outside the skill folder",
		Fix:     "replace the link with the file itself"},
	{ID: ruleTooLarge, Severity: Medium,
		Summary: "the skill is larger than hosts accept (Claude API: 8 MB upload)",
		Fix:     "move large data out of the skill or fetch it declared and pinned"},
	{ID: ruleScanLimit, Severity: High,
		Summary: "content was not scanned: over the per-file, total or file-count limit",
		Fix:     "split or shrink the skill; what was not read was not vetted"},
}

// noDigestCheck rejects a download that is checked before it runs.
func noDigestCheck(m string) bool {
	l := strings.ToLower(m)
	for _, p := range []string{"sha256sum", "shasum", "sha512sum", "gpg --verify", "cosign verify", "minisign", "openssl dgst"} {
		if strings.Contains(l, p) {
			return false
		}
	}
	return true
}

// notPlaceholder rejects documented example keys and placeholders.
func notPlaceholder(m string) bool {
	l := strings.ToLower(m)
	for _, p := range []string{"example", "xxxx", "your", "0000000000", "1234567890", "..."} {
		if strings.Contains(l, p) {
			return false
		}
	}
	return true
}
