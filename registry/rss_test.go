package registry

import (
	"bufio"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLargeSkillMemory packs and unpacks a 200 MB skill, each in a child
// process, and reports each one's peak RSS: streaming keeps it flat
// whatever the skill's size. It is heavy, so it runs only with
// SKILLPM_LARGE_TEST=1:
//
//	SKILLPM_LARGE_TEST=1 go test ./registry -run LargeSkillMemory -v
func TestLargeSkillMemory(t *testing.T) {
	if step := os.Getenv("SKILLPM_RSS_STEP"); step != "" {
		rssChild(t, step)
		return
	}
	if os.Getenv("SKILLPM_LARGE_TEST") == "" {
		t.Skip("set SKILLPM_LARGE_TEST=1 to pack and unpack a 200 MB skill")
	}
	dir := writeSkill(t, t.TempDir(), "big", "1.0.0", nil)
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 1<<20)
	for i := range 4 {
		f, err := os.Create(filepath.Join(dir, "assets", "part"+string(rune('a'+i))+".bin"))
		if os.IsNotExist(err) {
			os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
			f, err = os.Create(filepath.Join(dir, "assets", "part"+string(rune('a'+i))+".bin"))
		}
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			for j := range buf {
				buf[j] = byte(rng.Uint32())
			}
			f.Write(buf)
		}
		f.Close()
	}
	work := t.TempDir()
	for _, step := range []string{"pack", "unpack"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLargeSkillMemory$", "-test.v")
		cmd.Env = append(os.Environ(), "SKILLPM_RSS_STEP="+step, "SKILLPM_RSS_DIR="+dir, "SKILLPM_RSS_WORK="+work)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", step, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "peak RSS") {
				t.Log(strings.TrimSpace(line))
			}
		}
	}
}

func rssChild(t *testing.T, step string) {
	dir, work := os.Getenv("SKILLPM_RSS_DIR"), os.Getenv("SKILLPM_RSS_WORK")
	layer := filepath.Join(work, "layer.tar.gz")
	switch step {
	case "pack":
		p, err := Pack(bg, dir, PackOptions{TempDir: work})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p.layerPath, layer); err != nil {
			t.Fatal(err)
		}
		t.Logf("pack: %d bytes of files into a %d byte layer; peak RSS %s", p.Stats.Bytes, p.Layer.Size, peakRSS())
	case "unpack":
		f, err := os.Open(layer)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, err := Unpack(bg, f, filepath.Join(work, "out"), UnpackOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("unpack: %d bytes in %d entries; peak RSS %s", st.Bytes, st.Files, peakRSS())
	}
}

// peakRSS is VmHWM from /proc/self/status (Linux).
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
