package command

import "fmt"

// HumanBytes is a size for people: B, KiB, MiB or GiB, one decimal.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func Dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func OrNone(v string) string {
	if v == "" {
		return "(no version)"
	}
	return v
}

func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func OrUnknown(s string) string {
	if s == "" {
		return "(unnamed skill)"
	}
	return s
}

func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
