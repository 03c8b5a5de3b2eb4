package httpadapter_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/store/memory"
)

func ExampleNew() {
	ctx := context.Background()
	svc := chatcore.New(memory.New())
	err := fixture.Load(ctx, svc, strings.NewReader(`{"realms": [{
		"id": 1, "string_id": "demo", "name": "Demo",
		"users": [{"id": 11, "email": "ada@demo.test", "full_name": "Ada", "role": "owner",
		           "api_key": "AdaKey00000000000000000000000000"}]
	}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(httpadapter.New(svc, httpadapter.Options{}))
	defer srv.Close()

	req, _ := http.NewRequestWithContext(ctx, "PATCH", srv.URL+"/api/v1/settings?color_scheme=2&dense_mode=true", nil)
	req.SetBasicAuth("ada@demo.test", "AdaKey00000000000000000000000000")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.Status)
	fmt.Print(string(body))
	// Output:
	// 200 OK
	// {"ignored_parameters_unsupported":["dense_mode"],"msg":"","result":"success"}
}
