package audit

import "math"

// keywords finds every occurrence of a set of ASCII keywords in one pass,
// case-insensitively: an Aho-Corasick automaton compiled into a dense
// transition table over byte classes (the bytes the keywords use, folded
// to lower case, plus one class for every other byte). Scanning costs one
// table lookup per input byte whatever the number of keywords, which is
// what lets Scan run dozens of rules without a regexp pass per rule.
//
// It is written here rather than imported: the job is about a hundred
// lines, the Go libraries for it either report no positions or are no
// longer maintained, and the byte-class table keeps it fast.
type keywords struct {
	class   [256]uint8 // byte -> class; 0 is "no keyword uses this byte"
	nclass  int
	next    []uint16 // state*nclass + class -> state: half the cache of int32
	outs    [][]int  // state -> keyword indexes that end here (suffix links folded in)
	lengths []int    // keyword index -> length
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// compileKeywords builds the automaton. Keywords are matched
// case-insensitively; they must be ASCII and non-empty.
func compileKeywords(words []string) *keywords {
	k := &keywords{nclass: 1, lengths: make([]int, len(words))}
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			b := lower(w[i])
			if k.class[b] == 0 {
				k.class[b] = uint8(k.nclass)
				k.nclass++
			}
		}
	}
	for b := 'A'; b <= 'Z'; b++ {
		k.class[b] = k.class[b+'a'-'A']
	}
	// The trie, with -1 for a missing edge.
	type node struct {
		edge []int32
		out  []int
	}
	newNode := func() node {
		e := make([]int32, k.nclass)
		for i := range e {
			e[i] = -1
		}
		return node{edge: e}
	}
	nodes := []node{newNode()}
	for wi, w := range words {
		k.lengths[wi] = len(w)
		s := int32(0)
		for i := 0; i < len(w); i++ {
			c := k.class[lower(w[i])]
			if nodes[s].edge[c] < 0 {
				nodes = append(nodes, newNode())
				nodes[s].edge[c] = int32(len(nodes) - 1)
			}
			s = nodes[s].edge[c]
		}
		nodes[s].out = append(nodes[s].out, wi)
	}
	// Breadth-first: fill missing edges from the failure state, and fold
	// each failure state's outputs into the state.
	fail := make([]int32, len(nodes))
	queue := []int32{}
	for c := 0; c < k.nclass; c++ {
		if t := nodes[0].edge[c]; t < 0 {
			nodes[0].edge[c] = 0
		} else {
			fail[t] = 0
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		nodes[s].out = append(nodes[s].out, nodes[fail[s]].out...)
		for c := 0; c < k.nclass; c++ {
			t := nodes[s].edge[c]
			if t < 0 {
				nodes[s].edge[c] = nodes[fail[s]].edge[c]
				continue
			}
			fail[t] = nodes[fail[s]].edge[c]
			queue = append(queue, t)
		}
	}
	if len(nodes) > math.MaxUint16 {
		panic("audit: too many keyword states for the uint16 table")
	}
	k.next = make([]uint16, len(nodes)*k.nclass)
	k.outs = make([][]int, len(nodes))
	for i, n := range nodes {
		for c, t := range n.edge {
			k.next[i*k.nclass+c] = uint16(t)
		}
		k.outs[i] = n.out
	}
	return k
}

// scan calls hit for every keyword occurrence, with the keyword's index
// and the offset just past its end. The data is read as if a newline
// preceded it, so a keyword starting with "\n" also matches at the start.
func (k *keywords) scan(data []byte, hit func(word, end int)) {
	nc := int(k.nclass)
	s := int(k.next[int(k.class['\n'])])
	for i, b := range data {
		s = int(k.next[s*nc+int(k.class[b])])
		if out := k.outs[s]; out != nil {
			for _, w := range out {
				hit(w, i+1)
			}
		}
	}
}
