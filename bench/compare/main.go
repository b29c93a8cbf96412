// Command compare measures skillpm side by side with what it is compared
// to, as whole processes, and prints the figures as ratios:
//
//	go run ./bench/compare              # N=100 and N=500, a 200 MB skill
//	go run ./bench/compare -n 100 -big-mb 0 -runs 3   # quicker
//	go run ./bench/compare -cold                      # only the floor and cold installs
//	go run ./bench/compare -only start,warm -n 100    # start-up and warm rows only
//
// It builds skillpm, the raw floor (bench/floor), a hello-world
// (bench/hello) and the stat floors (bench/compare/listfloor and
// checkfloor) with the same toolchain, starts the pinned distribution
// registry on loopback (SKILLPM_REGISTRY_BIN, else
// ${SKILLPM_TOOLS:-$HOME/.cache/skillpm-tools}/bin/registry, which
// 'scripts/test tools' builds) with its storage in the work folder, publishes N synthetic skills of about
// 300 KB (a SKILL.md, a reference, a script and a random binary asset)
// and then, in alternating rounds (every variant once per round; the
// medians are printed):
//
//   - the raw floor: every manifest and blob GET with 8 connections, each
//     blob written once;
//   - skillpm install, cold (empty cache, no targets; the lock is already
//     there) into the default two targets;
//   - an 'oras pull' loop, one process per skill, when an ORAS CLI is
//     available (SKILLPM_ORAS_BIN, else $SKILLPM_TOOLS/bin/oras);
//   - skillpm install, warm no-op; install --frozen (with -only warm, also
//     status and verify); the stat floor of a warm check (checkfloor: an
//     fstatat of every folder and file the installed skills hold in both
//     targets, as a walk listed them before the rounds); skillpm
//     --version. The warm installs are also given as a ratio of the stat
//     floor.
//
// Process start is measured the same way against the hello-world: the
// stat floor of list (listfloor: the discovery folders the fixture has
// read, each skill's SKILL.md and tools.json fstatat'ed, a line printed
// per skill), --version, list of 1,000 installed skills, search over
// 10,000 indexed skills and tools --json over 1,000; list and tools
// --json are also given as a ratio of the stat floor. Every child runs under bench/rusage,
// which reports its wall time, CPU time and getrusage peak RSS; it is printed for every row and for a cold install of one
// skill with a 200 MB asset (-big-mb).
//
// The machine's load moves every absolute figure; the ratios, taken
// within one round, move much less. Work goes under the user cache folder
// (-dir), not TMPDIR: skillpm's cache and targets live on a real disk.
// This is a program, not a test: nothing here runs in scripts/test.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skillpm/skillpm/install"
)

func main() {
	ns := flag.String("n", "100,500", "comma-separated skill counts")
	runs := flag.Int("runs", 5, "alternating rounds per install measurement")
	startRuns := flag.Int("start-runs", 21, "alternating rounds per process-start measurement")
	size := flag.Int("size", 300<<10, "bytes per synthetic skill")
	bigMB := flag.Int("big-mb", 200, "MB of the single large skill whose cold install is measured (0: skip)")
	skillpmBin := flag.String("skillpm", "", "skillpm binary to measure (default: build ./cmd/skillpm)")
	regBin := flag.String("registry", "", "distribution registry binary (default: SKILLPM_REGISTRY_BIN or the scripts/test build)")
	orasBin := flag.String("oras", "", "ORAS CLI binary (default: SKILLPM_ORAS_BIN or the scripts/test build)")
	workDir := flag.String("dir", "", "`DIR` to work in (default: a new folder under the user cache folder)")
	keep := flag.Bool("keep", false, "keep the work folder")
	baseBin := flag.String("base", "", "with -cold or -only start,warm, a second skillpm binary measured in the same rounds (before/after)")
	coldOnly := flag.Bool("cold", false, "measure only the floor and the cold installs (no process start, oras or warm rows; the large skill only with an explicit -big-mb); the same as -only cold")
	only := flag.String("only", "", "run only these rows, comma-separated: start (process start and the stat floor of list), warm (warm installs, status, verify, the stat floor of a warm check and --version; no cold installs, raw floor or oras), cold (as -cold)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("bench/compare: ")
	ctx := context.Background()

	var counts []int
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			log.Fatalf("-n: %q is not a positive count", s)
		}
		counts = append(counts, n)
	}
	tools := os.Getenv("SKILLPM_TOOLS")
	if tools == "" {
		home, _ := os.UserHomeDir()
		tools = filepath.Join(home, ".cache", "skillpm-tools")
	}
	*regBin = firstOf(*regBin, os.Getenv("SKILLPM_REGISTRY_BIN"), filepath.Join(tools, "bin", "registry"))
	if _, err := os.Stat(*regBin); err != nil {
		log.Fatalf("no distribution registry at %s: run 'scripts/test tools' (or set SKILLPM_REGISTRY_BIN)", *regBin)
	}
	*orasBin = firstOf(*orasBin, os.Getenv("SKILLPM_ORAS_BIN"), filepath.Join(tools, "bin", "oras"))
	if _, err := os.Stat(*orasBin); err != nil {
		*orasBin = ""
	}

	work := *workDir
	if work == "" {
		cache, err := os.UserCacheDir()
		check(err)
		check(os.MkdirAll(filepath.Join(cache, "skillpm-bench"), 0o755))
		work, err = os.MkdirTemp(filepath.Join(cache, "skillpm-bench"), "compare-")
		check(err)
	}
	if !*keep {
		defer os.RemoveAll(work)
	}
	bin := filepath.Join(work, "bin")
	if *skillpmBin == "" {
		// skillpm finds the full CLI and its sigstore helper beside itself.
		*skillpmBin = filepath.Join(bin, "skillpm")
		build("./cmd/skillpm", *skillpmBin)
		build("./cmd/skillpm-full", filepath.Join(bin, "skillpm-full"))
		build("./cmd/skillpm-sigstore", filepath.Join(bin, "skillpm-sigstore"))
	}
	floorBin, helloBin, rusageBin := filepath.Join(bin, "floor"), filepath.Join(bin, "hello"), filepath.Join(bin, "rusage")
	listFloorBin, checkFloorBin := filepath.Join(bin, "listfloor"), filepath.Join(bin, "checkfloor")
	build("./bench/floor", floorBin)
	build("./bench/hello", helloBin)
	build("./bench/rusage", rusageBin)
	build("./bench/compare/listfloor", listFloorBin)
	build("./bench/compare/checkfloor", checkFloorBin)

	host, stop, err := startRegistry(ctx, *regBin, work)
	check(err)
	defer stop()
	goVersion, _ := exec.Command("go", "env", "GOVERSION").Output()
	fmt.Printf("bench/compare: %s %s/%s, %d CPUs; registry %s on %s\n",
		strings.TrimSpace(string(goVersion)), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), *regBin, host)
	if *orasBin == "" {
		fmt.Println("oras: not built (scripts/test tools)")
	} else {
		fmt.Println("oras:", *orasBin)
	}
	fmt.Println("wall and cpu (user+sys of the child) are medians of alternating rounds; ratios are of the medians")

	rows := map[string]bool{}
	for _, r := range strings.Split(*only, ",") {
		if r = strings.TrimSpace(r); r != "" {
			if r != "start" && r != "warm" && r != "cold" {
				log.Fatalf("-only: %q is not start, warm or cold", r)
			}
			rows[r] = true
		}
	}
	if rows["cold"] {
		if rows["warm"] {
			log.Fatalf("-only: cold and warm measure different install rows; run them separately")
		}
		*coldOnly = true
	}
	all := len(rows) == 0 && !*coldOnly
	b := &bench{skillpm: *skillpmBin, floor: floorBin, hello: helloBin, rusage: rusageBin, oras: *orasBin, host: host, work: work, coldOnly: *coldOnly, base: *baseBin,
		listFloor: listFloorBin, checkFloor: checkFloorBin}
	b.warmOnly = rows["warm"]
	if all || rows["start"] {
		startupRows(b, *startRuns)
	}
	if all || rows["warm"] || *coldOnly {
		for _, n := range counts {
			b.installRows(ctx, n, *size, *runs)
		}
	}
	bigSet := false
	flag.Visit(func(f *flag.Flag) { bigSet = bigSet || f.Name == "big-mb" })
	if *bigMB > 0 && (all || (*coldOnly && bigSet)) {
		b.bigSkill(ctx, *bigMB)
	}
}

// bench holds the binaries and the registry every measurement uses.
type bench struct {
	skillpm, floor, hello, oras, rusage string
	listFloor, checkFloor               string // the stat floors (bench/compare/listfloor, checkfloor)
	trash                               int    // paths discarded so far (discard)
	host, work                          string
	coldOnly                            bool   // only the floor and the cold install
	base                                string // with coldOnly, a skillpm to compare with
	warmOnly                            bool   // installRows measures the warm rows only (-only warm)
}

// startupRows measures process start: hello-world against skillpm
// commands that do little work beyond starting.
func startupRows(b *bench, rounds int) {
	proj, home := filepath.Join(b.work, "start", "project"), filepath.Join(b.work, "start", "home")
	check(writeStartFixtures(proj, home, 1000, 10000))
	env := []string{"SKILLPM_HOME=" + home, "HOME=" + filepath.Join(b.work, "start"), "NO_COLOR=1"}
	cmds := []struct {
		args    []string
		note    string
		target  string
		vsFloor bool // also a ratio to the stat floor
	}{
		{[]string{"--version"}, "", "target <= 2x", false},
		{[]string{"list"}, " (1,000 installed)", "target <= 3x", true},
		{[]string{"search", "pdf", "topic-42"}, " (10,000 indexed)", "target <= 3x", false},
		{[]string{"tools", "--json"}, " (1,000 skills)", "target <= 3x", true},
	}
	// The discovery folders list reads (HOME is the user scope's root)
	// that the fixture has.
	var discovery []string
	for _, d := range install.SearchDirs(proj, filepath.Join(b.work, "start")) {
		if fi, err := os.Stat(d.Path); err == nil && fi.IsDir() {
			discovery = append(discovery, d.Path)
		}
	}
	vs := []variant{
		{name: "hello-world (same toolchain)", run: func() sample { return b.exec(proj, env, b.hello) }},
		{name: "stat floor: list 1,000", run: func() sample { return b.exec(proj, env, b.listFloor, discovery...) }},
	}
	const floorAt = 1
	targets := []string{"", "stats and output only (bench/compare/listfloor)"}
	vsFloor := []bool{false, false}
	type bin struct{ label, path string }
	bins := []bin{{"skillpm", b.skillpm}}
	if b.base != "" {
		bins = append(bins, bin{"base skillpm", b.base}) // before/after, in the same rounds
	}
	for _, x := range bins {
		for _, c := range cmds {
			vs = append(vs, variant{name: x.label + " " + strings.Join(c.args, " ") + c.note,
				run: func() sample { return b.exec(proj, env, x.path, c.args...) }})
			targets = append(targets, c.target)
			vsFloor = append(vsFloor, c.vsFloor)
		}
	}
	res := alternate(vs, rounds)
	fmt.Printf("\nprocess start, %d rounds\n", rounds)
	header("vs hello-world")
	for i, r := range res {
		note := targets[i]
		if vsFloor[i] {
			note += "; " + floorNote(r, res[floorAt])
		}
		row(r, res[0], note)
	}
}

// installRows publishes n skills and measures the install variants.
func (b *bench) installRows(ctx context.Context, n, size, rounds int) {
	dir := filepath.Join(b.work, fmt.Sprintf("n%d", n))
	src, proj, home := filepath.Join(dir, "src"), filepath.Join(dir, "project"), filepath.Join(dir, "home")
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	names := make([]string, n)
	var total int64
	for i := range names {
		names[i] = fmt.Sprintf("skill-%04d", i)
		check(writeSkill(filepath.Join(src, names[i]), names[i], size, rng))
		total += int64(size)
	}
	prefix := fmt.Sprintf("bench/%x/n%d", rand.Uint32(), n)
	pubs, err := publish(ctx, b.host, prefix, src, names)
	check(err)
	check(writeProject(proj, home, b.host, prefix, pubs))
	var urls []string
	for _, p := range pubs {
		urls = append(urls, p.urls...)
	}
	urlFile := filepath.Join(dir, "urls.txt")
	check(os.WriteFile(urlFile, []byte(strings.Join(urls, "\n")+"\n"), 0o644))
	env := []string{"SKILLPM_HOME=" + home, "HOME=" + dir, "NO_COLOR=1"}
	// The first install resolves and writes skills.lock; it is not measured.
	if s := b.exec(proj, env, b.skillpm, "install"); s.err != nil {
		log.Fatalf("skillpm install of %d skills: %v\n%s", n, s.err, s.out)
	}
	out := filepath.Join(dir, "out")
	if !b.warmOnly {
		settle()
	}
	if b.warmOnly {
		b.warmRows(proj, env, n, total, rounds)
		b.discard(dir)
		return
	}
	vs := []variant{
		{name: "raw floor (8 connections, each blob once)", run: func() sample {
			b.discard(out)
			return b.exec(dir, nil, b.floor, "-urls", urlFile, "-o", out)
		}},
		{name: "skillpm install, cold, 2 targets", run: func() sample {
			b.emptyHome(home)
			b.discard(filepath.Join(proj, ".claude"), filepath.Join(proj, ".agents"))
			return b.exec(proj, env, b.skillpm, "install")
		}},
	}
	if b.coldOnly {
		if b.base != "" {
			vs = append(vs, variant{name: "base skillpm install, cold, 2 targets", run: func() sample {
				b.emptyHome(home)
				b.discard(filepath.Join(proj, ".claude"), filepath.Join(proj, ".agents"))
				return b.exec(proj, env, b.base, "install")
			}})
		}
		res := alternate(vs, rounds)
		fmt.Printf("\nN=%d skills, %.1f MB, cold rows only; %d rounds\n", n, float64(total)/1e6, rounds)
		header("ratio")
		row(res[0], res[0], "")
		for _, r := range res[1:] {
			row(r, res[0], "x floor (target <= 2x)")
		}
		b.discard(dir)
		return
	}
	if b.oras != "" {
		vs = append(vs, variant{name: "oras pull loop (a process per skill)", run: func() sample {
			b.discard(out)
			var sum sample
			for _, p := range pubs {
				s := b.exec(dir, env, b.oras, "pull", "--plain-http", "-o", filepath.Join(out, p.name), p.ref.String())
				if s.err != nil {
					return s
				}
				sum.wall += s.wall
				sum.cpu += s.cpu
				sum.rss = max(sum.rss, s.rss)
			}
			return sum
		}})
	}
	// The warm rows work on a project and home of their own: the cold
	// rows empty theirs every round, warm stamps included, which would
	// make every warm install the first one after a cold install.
	wproj, whome := filepath.Join(dir, "warm", "project"), filepath.Join(dir, "warm", "home")
	check(writeProject(wproj, whome, b.host, prefix, pubs))
	wenv := []string{"SKILLPM_HOME=" + whome, "HOME=" + filepath.Join(dir, "warm"), "NO_COLOR=1"}
	for _, args := range [][]string{{"install"}, {"install"}, {"install", "--frozen"}} {
		// Not measured: the install, then the first no-op of each
		// command line, which leaves the stamp the front answers from.
		if s := b.exec(wproj, wenv, b.skillpm, args...); s.err != nil {
			log.Fatalf("skillpm %s of %d skills: %v\n%s", strings.Join(args, " "), n, s.err, s.out)
		}
	}
	warmAt := len(vs)
	floor := b.checkFloorVariant(wproj, wenv)
	vs = append(vs,
		variant{name: "skillpm install, warm no-op", run: func() sample { return b.exec(wproj, wenv, b.skillpm, "install") }},
		variant{name: "skillpm install --frozen, warm", run: func() sample { return b.exec(wproj, wenv, b.skillpm, "install", "--frozen") }},
		floor.variant,
		variant{name: "skillpm --version", run: func() sample { return b.exec(wproj, wenv, b.skillpm, "--version") }},
	)
	floorAt := len(vs) - 2
	res := alternate(vs, rounds)
	fmt.Printf("\nN=%d skills, %.1f MB (~%d KB each: SKILL.md, a reference, a script, a random binary asset); %d rounds\n",
		n, float64(total)/1e6, size>>10, rounds)
	header("ratio")
	for i, r := range res {
		switch {
		case i == 0:
			row(r, res[0], "")
		case i == 1:
			row(r, res[0], "x floor (target <= 2x)")
		case i < warmAt:
			row(r, res[0], fmt.Sprintf("x floor; skillpm's cold install is %.1fx faster", float64(r.wall)/float64(res[1].wall)))
		case i == floorAt:
			row(r, res[len(res)-1], "x --version; "+floor.note)
		case i < len(res)-1:
			row(r, res[len(res)-1], "x --version (target <= 1.3x); "+floorNote(r, res[floorAt]))
		default:
			row(r, r, "")
		}
	}
	b.discard(dir)
}

// discard moves what a round wrote out of the way, into the work
// folder's trash, which is deleted when the program ends. Deleting it
// between rounds would measure ext4 rather than what runs: for about 30
// seconds (dirty_expire) the kernel will not reuse a freed inode, and it
// reads the inode table to tell, so creating files right after a large
// tree was deleted costs several times as much, more the larger the tree
// (seen here as a cold install of 500 skills costing 3x per skill what
// one of 100 did).
func (b *bench) discard(paths ...string) {
	dir := filepath.Join(b.work, "trash")
	check(os.MkdirAll(dir, 0o755))
	for _, p := range paths {
		b.trash++
		if err := os.Rename(p, filepath.Join(dir, strconv.Itoa(b.trash))); err != nil && !errors.Is(err, os.ErrNotExist) {
			check(err)
		}
	}
}

// settle waits until the file system has forgotten the deletes the
// fixtures made (the registry's upload folders, the unmeasured first
// install's staging), for the reason discard gives: the kernel's
// dirty_expire interval, 30 s by default.
func settle() {
	wait := 30 * time.Second
	if b, err := os.ReadFile("/proc/sys/vm/dirty_expire_centisecs"); err == nil {
		if cs, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			wait = time.Duration(cs) * 10 * time.Millisecond
		}
	}
	fmt.Fprintf(os.Stderr, "waiting %s for the file system to settle (see settle)\n", wait+time.Second)
	time.Sleep(wait + time.Second)
}

// emptyHome discards everything under home but the user config: the
// blob cache and the index, for a cold install.
func (b *bench) emptyHome(home string) {
	entries, err := os.ReadDir(home)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		check(err)
	}
	for _, e := range entries {
		if e.Name() != "config.yaml" {
			b.discard(filepath.Join(home, e.Name()))
		}
	}
}

// warmRows measures only the warm installs of the project proj, status
// and verify, against --version (-only warm); with -base, the base binary's
// too, in the same rounds (before/after).
func (b *bench) warmRows(proj string, env []string, n int, total int64, rounds int) {
	type bin struct{ label, path string }
	bins := []bin{{"skillpm", b.skillpm}}
	if b.base != "" {
		bins = append(bins, bin{"base skillpm", b.base})
	}
	policy := filepath.Join(b.work, "policy-none.yaml")
	check(writeFile(policy, []byte("version: 1\nrules:\n  - prefix: \"*\"\n    require: none\n"), 0o644))
	var vs []variant
	for i, x := range bins {
		env, proj := env, proj
		if i > 0 {
			// A home and a project of their own. The warm stamps of one
			// command line are one file, and each program would replace
			// the other's; and the install records' stat fingerprints
			// differ between versions (the ctime was added), so each
			// would rehash and re-record what the other installed.
			env = b.ownHome(env, x.label)
			own := filepath.Join(b.work, "project-"+strings.ReplaceAll(x.label, " ", "-"))
			for _, f := range []string{"skills.yaml", "skills.lock"} {
				data, err := os.ReadFile(filepath.Join(proj, f))
				check(err)
				check(writeFile(filepath.Join(own, f), data, 0o644))
			}
			proj = own
		}
		// Not measured: the install into the base's own project, then
		// the first no-op of each command line, which leaves the stamp a
		// front answers the later ones from.
		for _, args := range [][]string{{"install"}, {"install"}, {"install", "--frozen"}} {
			if s := b.exec(proj, env, x.path, args...); s.err != nil {
				log.Fatalf("%s %s: %v\n%s", x.label, strings.Join(args, " "), s.err, s.out)
			}
		}
		if s := b.exec(proj, env, x.path, "verify", "--policy", policy); s.err != nil {
			log.Fatalf("%s verify: %v\n%s", x.label, s.err, s.out)
		}
		vs = append(vs,
			variant{name: x.label + " install, warm no-op", run: func() sample { return b.exec(proj, env, x.path, "install") }},
			variant{name: x.label + " install --frozen, warm", run: func() sample { return b.exec(proj, env, x.path, "install", "--frozen") }},
			variant{name: x.label + " status", run: func() sample { return b.exec(proj, env, x.path, "status") }},
			// No signature to check (require: none): the lock against
			// skills.yaml, a HEAD of every locked manifest and blob on the
			// loopback registry, and the installed files.
			variant{name: x.label + " verify", run: func() sample { return b.exec(proj, env, x.path, "verify", "--policy", policy) }},
		)
	}
	floor := b.checkFloorVariant(proj, env)
	vs = append(vs, floor.variant,
		variant{name: "skillpm --version", run: func() sample { return b.exec(proj, env, b.skillpm, "--version") }})
	res := alternate(vs, rounds)
	fmt.Printf("\nN=%d skills, %.1f MB, warm only; %d rounds\n", n, float64(total)/1e6, rounds)
	header("ratio")
	version, floorRes := res[len(res)-1], res[len(res)-2]
	for _, r := range res[:len(res)-1] {
		note := "x --version"
		switch {
		case r.name == floor.name:
			note += "; " + floor.note
		case strings.Contains(r.name, " install"):
			note += " (target <= 1.3x); " + floorNote(r, floorRes)
		}
		row(r, version, note)
	}
	row(version, version, "")
}

// statFloor is the stat floor of a warm check, ready to measure.
type statFloor struct {
	variant
	note string // what the floor row says it did
}

// checkFloorVariant walks the targets of the installed project proj once
// (not measured), writes the paths they hold for bench/compare/checkfloor
// and returns the variant that runs it in proj.
func (b *bench) checkFloorVariant(proj string, env []string) statFloor {
	paths := filepath.Join(filepath.Dir(proj), "checkfloor-paths.txt")
	n, err := writeCheckPaths(proj, paths)
	check(err)
	return statFloor{
		variant: variant{name: "stat floor: warm check", run: func() sample { return b.exec(proj, env, b.checkFloor, paths) }},
		note:    fmt.Sprintf("fstatat of %d paths (bench/compare/checkfloor)", n),
	}
}

// ownHome returns env with SKILLPM_HOME moved to a new folder beside the
// work folder's, holding a copy of its config.yaml.
func (b *bench) ownHome(env []string, label string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if home, ok := strings.CutPrefix(kv, "SKILLPM_HOME="); ok {
			own := filepath.Join(b.work, "home-"+strings.ReplaceAll(label, " ", "-"))
			cfg, err := os.ReadFile(filepath.Join(home, "config.yaml"))
			check(err)
			check(writeFile(filepath.Join(own, "config.yaml"), cfg, 0o644))
			out[i] = "SKILLPM_HOME=" + own
		}
	}
	return out
}

// bigSkill measures a cold install of one skill with a large asset.
func (b *bench) bigSkill(ctx context.Context, mb int) {
	dir := filepath.Join(b.work, "big")
	src, proj, home := filepath.Join(dir, "src"), filepath.Join(dir, "project"), filepath.Join(dir, "home")
	rng := rand.New(rand.NewPCG(uint64(mb), 9))
	check(writeSkill(filepath.Join(src, "big-skill"), "big-skill", mb<<20, rng))
	prefix := fmt.Sprintf("bench/%x/big", rand.Uint32())
	pubs, err := publish(ctx, b.host, prefix, src, []string{"big-skill"})
	check(err)
	check(writeProject(proj, home, b.host, prefix, pubs))
	env := []string{"SKILLPM_HOME=" + home, "HOME=" + dir, "NO_COLOR=1"}
	if s := b.exec(proj, env, b.skillpm, "install"); s.err != nil {
		log.Fatalf("skillpm install of a %d MB skill: %v\n%s", mb, s.err, s.out)
	}
	settle()
	out := filepath.Join(dir, "out")
	res := alternate([]variant{
		{name: "raw floor", run: func() sample {
			b.discard(out)
			return b.exec(dir, nil, b.floor, "-urls", writeURLs(dir, pubs), "-o", out)
		}},
		{name: "skillpm install, cold, 2 targets", run: func() sample {
			b.emptyHome(home)
			b.discard(filepath.Join(proj, ".claude"), filepath.Join(proj, ".agents"))
			return b.exec(proj, env, b.skillpm, "install")
		}},
	}, 3)
	fmt.Printf("\none skill with a %d MB random asset; 3 rounds\n", mb)
	header("ratio")
	row(res[0], res[0], "")
	row(res[1], res[0], "x floor (peak RSS target <= 64 MB)")
	b.discard(dir)
}

func writeURLs(dir string, pubs []published) string {
	var urls []string
	for _, p := range pubs {
		urls = append(urls, p.urls...)
	}
	f := filepath.Join(dir, "urls.txt")
	check(os.WriteFile(f, []byte(strings.Join(urls, "\n")+"\n"), 0o644))
	return f
}

// build compiles a package of this module into out.
func build(pkg, out string) {
	// As the README's install line builds skillpm: static (a cgo binary
	// pays the dynamic loader and libc on every start; hello-world is
	// static either way: it imports no net or os/user), and without the
	// CLI library's documentation generator (urfave_cli_no_docs).
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("go build %s: %v", pkg, err)
	}
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
