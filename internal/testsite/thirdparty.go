package testsite

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
)

// The third-party corpus: pages built on widget libraries real sites use
// (jQuery UI, Bootstrap, Tom Select, React, Lit, …), installed from npm at
// the versions thirdparty/package-lock.json pins and bundled by
// scripts/build-thirdparty.sh into thirdparty/dist. Pages are served at
// /tp/NAME from thirdparty/pages, the bundles at /tp/assets/FILE.

// thirdPartyFS holds the corpus's pages; each loads its library's bundle.
//
//go:embed thirdparty/pages/*.html
var thirdPartyFS embed.FS

// ThirdPartyPages lists the names of the third-party corpus's pages
// (served at /tp/NAME), sorted.
func ThirdPartyPages() []string { return pageNames(thirdPartyFS, "thirdparty/pages") }

// ThirdPartyDir is the folder of the corpus's package.json, in the source
// tree this package was built from.
func ThirdPartyDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "thirdparty")
}

// ThirdPartyBuilt says whether the corpus's bundles exist, and if not,
// what to run.
func ThirdPartyBuilt() error {
	if _, err := os.Stat(filepath.Join(ThirdPartyDir(), "dist", "jqueryui.js")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the third-party corpus is not built: run scripts/build-thirdparty.sh (it needs npm)")
		}
		return err
	}
	return nil
}

func thirdPartyPage(w http.ResponseWriter, r *http.Request) {
	body, err := thirdPartyFS.ReadFile("thirdparty/pages/" + r.PathValue("name") + ".html")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(body)
}

func thirdPartyAssets() http.Handler {
	return http.StripPrefix("/tp/assets/", http.FileServer(http.Dir(filepath.Join(ThirdPartyDir(), "dist"))))
}
