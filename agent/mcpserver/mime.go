package mcpserver

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"unicode/utf8"
)

// mimeTypes maps the extensions skills carry to MIME types. A fixed table
// rather than mime.TypeByExtension, which reads the machine's mime.types
// (or the registry on Windows), so every machine serves the same types.
var mimeTypes = map[string]string{
	".md":       "text/markdown",
	".markdown": "text/markdown",
	".txt":      "text/plain",
	".text":     "text/plain",
	".json":     "application/json",
	".jsonl":    "application/jsonl",
	".yaml":     "application/yaml",
	".yml":      "application/yaml",
	".toml":     "application/toml",
	".xml":      "application/xml",
	".html":     "text/html",
	".htm":      "text/html",
	".css":      "text/css",
	".csv":      "text/csv",
	".tsv":      "text/tab-separated-values",
	".js":       "text/javascript",
	".mjs":      "text/javascript",
	".cjs":      "text/javascript",
	".ts":       "text/x-typescript",
	".py":       "text/x-python",
	".sh":       "text/x-shellscript",
	".bash":     "text/x-shellscript",
	".rb":       "text/x-ruby",
	".go":       "text/x-go",
	".rs":       "text/x-rust",
	".java":     "text/x-java",
	".c":        "text/x-c",
	".h":        "text/x-c",
	".sql":      "application/sql",
	".svg":      "image/svg+xml",
	".png":      "image/png",
	".jpg":      "image/jpeg",
	".jpeg":     "image/jpeg",
	".gif":      "image/gif",
	".webp":     "image/webp",
	".ico":      "image/vnd.microsoft.icon",
	".pdf":      "application/pdf",
	".zip":      "application/zip",
	".gz":       "application/gzip",
	".tar":      "application/x-tar",
	".wasm":     "application/wasm",
	".woff":     "font/woff",
	".woff2":    "font/woff2",
	".ttf":      "font/ttf",
	".otf":      "font/otf",
	".mp3":      "audio/mpeg",
	".wav":      "audio/wav",
	".mp4":      "video/mp4",
	".docx":     "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx":     "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx":     "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}

// mimeOf returns the MIME type of file p under root: by extension, and for
// an unknown extension by sniffing its first 512 bytes (text/plain for
// UTF-8 text, application/octet-stream otherwise).
func mimeOf(root *os.Root, p string) string {
	if t, ok := mimeTypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	fh, err := openFile(root, p)
	if err != nil {
		return "application/octet-stream"
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "application/octet-stream" // swapped since it was listed
	}
	buf := make([]byte, 512)
	n, _ := io.ReadFull(fh, buf)
	buf = buf[:n]
	b := buf
	for i := 0; i < 3 && n == 512 && len(b) > 0 && !utf8.Valid(b); i++ {
		b = b[:len(b)-1] // a rune cut at the end of a full buffer is still text
	}
	if utf8.Valid(b) && bytes.IndexByte(buf, 0) < 0 {
		return "text/plain"
	}
	if t := http.DetectContentType(buf); !strings.HasPrefix(t, "text/") {
		return t
	}
	return "application/octet-stream"
}

// textual reports whether a MIME type is served as text.
func textual(mime string) bool {
	if strings.HasPrefix(mime, "text/") {
		return true
	}
	switch mime {
	case "application/json", "application/jsonl", "application/yaml", "application/toml",
		"application/xml", "application/sql", "image/svg+xml":
		return true
	}
	return false
}
