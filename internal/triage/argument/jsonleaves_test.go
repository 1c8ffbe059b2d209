package argument

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// plainSeeds are arguments flattenPlain reads and arguments it leaves to
// encoding/json.
var plainSeeds = []string{
	`{"owner":"acme","repo":"ledger","pull_number":512}`,
	`{"path":"/home/dev/project/a.go","edits":[{"oldText":"pasre","newText":"parse"}]}`,
	` [1, -0.5e+3, true, false, null, "x", {"B":1,"a":[2,[3]]}] `,
	`{"a":1,"a":{"b":"last wins"},"c":null,"Ä":"ü","":""}`,
	`{"a":"esc\"aped"}`, `{"a":"\u00e9"}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":truex}`, `{"a":1} {"b":2}`,
	`{"a":1}x`, `"top"`, `42`, `{"a":"` + "\xff" + `"}`, `{"a":"tab	in"}`, `{"a":[1,]}`, `{"a":1,}`, `{,}`, `{"a" 1}`,
	`[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]`, `{}`, `[]`, `[{}]`, `{"k":[]}`, "\ufeff{}", `{"a":1E5,"b":-0,"c":0.25}`,
}

// TestG14_MCPArgumentsReadAsEncodingJSONDoes checks that the fast reading
// of MCP arguments gives the leaves encoding/json gives, on the seeds and
// on every MCP call of the test data.
func TestG14_MCPArgumentsReadAsEncodingJSONDoes(t *testing.T) {
	args := append([]string(nil), plainSeeds...)
	files, _ := filepath.Glob("../testdata/corpus/*/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no test data in ../testdata/corpus")
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var line map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			collectArguments(line, &args)
		}
		fh.Close()
	}
	plain := 0
	for _, a := range args {
		if _, ok := flattenPlain([]byte(a)); ok {
			plain++
		}
		checkFlatten(t, a)
	}
	t.Logf("%d arguments, %d read without encoding/json", len(args), plain)
}

// collectArguments adds the "arguments" values found anywhere in a JSON object.
func collectArguments(m map[string]json.RawMessage, args *[]string) {
	for k, v := range m {
		if k == "arguments" {
			*args = append(*args, string(v))
			continue
		}
		var sub map[string]json.RawMessage
		if json.Unmarshal(v, &sub) == nil {
			collectArguments(sub, args)
		}
	}
}

func checkFlatten(t *testing.T, a string) {
	t.Helper()
	got, ok := flattenPlain([]byte(a))
	if !ok {
		return
	}
	want := flattenJSON([]byte(a))
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nplain %q\njson  %q", a, got, want)
	}
}

// FuzzFlattenPlain checks flattenPlain against encoding/json.
func FuzzFlattenPlain(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, a string) { checkFlatten(t, a) })
}
