package judge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// LoadKnowledge builds what the first pass knows about programs for a run:
// the embedded programs file, then the file named by `[first_pass]
// programs` in the user's configuration (src.UserConfigPath), then the one
// named in the managed configuration (src.ManagedPath). Each file's
// entries add programs and replace the entries of the same name read
// before it, so the managed file's entries win over the user's, which win
// over the embedded ones. A relative path is relative to the
// configuration file naming it. Configuration files that do not exist are
// skipped; a configuration or programs file that cannot be read or is not
// valid is an error at its file:line:col, a configuration error that stops
// the run before anything starts.
func LoadKnowledge(src wardenhome.ConfigSources) (*Knowledge, error) {
	var files []knowledgeFile
	for _, c := range []struct {
		cfg  string
		role fileRole
	}{{src.UserConfigPath, RoleUser}, {src.ManagedPath, RoleManaged}} {
		p, err := programsSetting(c.cfg)
		if err != nil {
			return nil, err
		}
		if p != "" {
			files = append(files, knowledgeFile{p, c.role})
		}
	}
	return DefaultKnowledge().withFiles(files...)
}

// firstPassConfig is the [first_pass] table of a configuration file.
type firstPassConfig struct {
	FirstPass *struct {
		Programs configPath `toml:"programs"`
	} `toml:"first_pass"`
}

// configPath is a string value. Decoding it through UnmarshalTOML makes a
// value of the wrong type a toml.ParseError, which has a position.
type configPath struct{ path string }

// UnmarshalTOML implements toml.Unmarshaler.
func (c *configPath) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return fmt.Errorf("first_pass.programs: want the path of a programs file")
	}
	c.path = s
	return nil
}

// programsSetting returns the programs file the configuration file cfg
// names in [first_pass], absolute; "" when cfg does not exist or names
// none.
func programsSetting(cfg string) (string, error) {
	if cfg == "" {
		return "", nil
	}
	data, err := os.ReadFile(cfg)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("configuration: %w", err)
	}
	if !strings.Contains(string(data), "first_pass") {
		return "", nil // the common case, without decoding the file
	}
	var c firstPassConfig
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) && pe.Position.Line > 0 {
			return "", &filepos.Error{Pos: filepos.Pos{File: cfg, Line: pe.Position.Line, Col: max(pe.Position.Col, 1)}, Msg: pe.Message, Err: nil}
		}
		return "", fmt.Errorf("%s: %w", cfg, err)
	}
	for _, k := range md.Undecoded() {
		if len(k) >= 2 && k[0] == "first_pass" {
			line := keyLine(string(data), k[1])
			return "", &filepos.Error{Pos: filepos.Pos{File: cfg, Line: line, Col: 1}, Msg: fmt.Sprintf("unknown key first_pass.%s (known: programs)", k[1])}
		}
	}
	if c.FirstPass == nil || c.FirstPass.Programs.path == "" {
		return "", nil
	}
	return absIn(cfg, c.FirstPass.Programs.path), nil
}

// keyLine returns the line (from 1) where key is set in a TOML text, 1 when
// it is not found.
func keyLine(text, key string) int {
	re := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i, l := range strings.Split(text, "\n") {
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 1
}
