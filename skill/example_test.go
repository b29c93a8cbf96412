package skill_test

import (
	"fmt"
	"log"

	"github.com/skillpm/skillpm/skill"
)

func ExampleLoad() {
	s, err := skill.Load("../testdata/skills/valid/count-words")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Name(), s.InferProfile())
	for _, t := range s.Tools {
		fmt.Printf("%s runtime=%q script=%q\n", t.Name, t.Runtime, t.Entrypoint)
	}
	// Output:
	// count-words skill-tools
	// count_words runtime="node" script="scripts/count_words.js"
	// count_lines runtime="python" script="scripts/count_lines.py"
	// count_help runtime="" script=""
}

func ExampleLinter_Lint() {
	l, err := skill.NewLinter()
	if err != nil {
		log.Fatal(err)
	}
	res := l.Lint("../testdata/skills/invalid/name-mismatch", skill.LintOptions{})
	for _, d := range res.Diagnostics {
		fmt.Println(d)
		fmt.Println("  fix:", d.Fix)
	}
	fmt.Printf("%d errors, %d warnings\n", res.Errors(), res.Warnings())
	// Output:
	// ../testdata/skills/invalid/name-mismatch/SKILL.md:2: error [name-mismatch] name "pdf-helper" differs from its folder "name-mismatch"
	//   fix: rename the folder to "pdf-helper" or set 'name: name-mismatch'
	// 1 errors, 0 warnings
}
