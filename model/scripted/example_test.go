package scripted_test

import (
	"context"
	"fmt"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/model/scripted"
)

func ExampleParse() {
	script := `
- content: Let me look first.
  tool_calls:
    - function: list_files
      arguments: {path: /tmp, recursive: true}
- tool_calls:
    - id: broken
      function: run
      arguments_raw: '{"cmd": "ls'
- content: Done.
`
	m, err := scripted.Parse([]byte(script), "example.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	req := model.Request{Messages: []chat.Message{{Role: chat.User, Content: "Tidy up /tmp, please."}}}
	for range 4 {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q", resp.Message.Content)
		for _, c := range resp.Message.ToolCalls {
			fmt.Printf(" %s %s", c.ID, c.Text())
			if c.ParseError != "" {
				fmt.Printf(" [%s]", c.ParseError)
			}
		}
		fmt.Println()
	}

	_, err = scripted.Parse([]byte("- content: hi\n  tool_call: []\n"), "typo.yaml")
	fmt.Println(err)
	// Output:
	// "Let me look first." call_1_1 list_files(path='/tmp', recursive=True)
	// "" broken run({"cmd": "ls) [arguments of run are not valid JSON]
	// "Done."
	// ""
	// typo.yaml:2:3: unknown key "tool_call" in turn (want content, tool_calls or role)
}
