package giturl_test

import (
	"fmt"

	"github.com/skillpm/skillpm/source/giturl"
)

func ExampleParse() {
	for _, s := range []string{"github.com/acme/skills/skills/pdf@v1.2.0", "git@host:team/skills.git//pdf", "https://git.example.com/repo.git#main"} {
		src, err := giturl.Parse(s)
		fmt.Printf("%+v %v\n", src, err)
	}
	fmt.Println(giturl.Redact("https://user:secret@host/repo.git"))
	// Output:
	// {URL:https://github.com/acme/skills.git Subdir:skills/pdf Ref:v1.2.0} <nil>
	// {URL:git@host:team/skills.git Subdir:pdf Ref:} <nil>
	// {URL:https://git.example.com/repo.git Subdir: Ref:main} <nil>
	// https://user:xxxxx@host/repo.git
}
