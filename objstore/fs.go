package objstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// FS is a read-only [fs.FS] of the objects under an s3://bucket/prefix,
// with "/" in keys as the directory separator, so that code written for
// a directory tree (fs.WalkDir, a Flight server's listing) serves a
// bucket. Opened files are [*File]s: an io.ReaderAt and a [RangeSource]
// over a [Source]. Listing uses ListObjectsV2 with a delimiter, one
// directory at a time. It is safe for concurrent use.
type FS struct {
	ctx    context.Context
	client *s3.Client
	bucket string
	prefix string // "" or ending in "/"
	url    string
	opts   Options
}

// NewFS returns the FS of the objects under url, s3://bucket or
// s3://bucket/prefix (a prefix is a directory: "data" and "data/" are the
// same). ctx bounds every request the FS makes later.
func NewFS(ctx context.Context, url string, opts *Options) (*FS, error) {
	loc, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	if loc.Scheme != "s3" {
		return nil, &Error{Op: "open", URL: url, Len: -1, Err: errors.New("a directory of objects needs an s3:// URL")}
	}
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	client, err := NewS3Client(ctx, &o)
	if err != nil {
		return nil, err
	}
	o.S3Client = client
	prefix := strings.Trim(loc.Key, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &FS{ctx: ctx, client: client, bucket: loc.Bucket, prefix: prefix, url: url, opts: o}, nil
}

func (f *FS) key(name string) string {
	if name == "." {
		return f.prefix
	}
	return f.prefix + name
}

// Open opens the object name (a path relative to the prefix) as a [*File],
// or a directory: "." or a prefix that has objects under it.
func (f *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &dirFile{fs: f, name: name}, nil
	}
	src, err := Open(f.ctx, "s3://"+f.bucket+"/"+f.key(name), &f.opts)
	if errors.Is(err, ErrNotFound) {
		if entries, derr := f.ReadDir(name); derr == nil && len(entries) > 0 {
			return &dirFile{fs: f, name: name}, nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &File{Source: src, name: name}, nil
}

// ReadDir lists the directory name: the objects and the common prefixes
// one level below it, sorted by name. Keys that are not valid fs paths
// ("a//b", "./x") are left out.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	prefix := f.key(name)
	if name != "." {
		prefix += "/"
	}
	var entries []fs.DirEntry
	p := s3.NewListObjectsV2Paginator(f.client, &s3.ListObjectsV2Input{Bucket: &f.bucket, Prefix: &prefix, Delimiter: aws.String("/")})
	for p.HasMorePages() {
		var page *s3.ListObjectsV2Output
		attempts, err := f.opts.retry(f.ctx, func(ctx context.Context) error {
			var err error
			page, err = p.NextPage(ctx)
			return s3Error(err)
		})
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: name,
				Err: &Error{Op: "list", URL: "s3://" + f.bucket + "/" + prefix, Len: -1, Attempts: attempts, Err: err}}
		}
		for _, cp := range page.CommonPrefixes {
			base := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), prefix), "/")
			if fs.ValidPath(base) && !strings.Contains(base, "/") {
				entries = append(entries, fs.FileInfoToDirEntry(&objInfo{name: base, dir: true}))
			}
		}
		for _, obj := range page.Contents {
			base := strings.TrimPrefix(aws.ToString(obj.Key), prefix)
			if base == "" || !fs.ValidPath(base) || strings.Contains(base, "/") {
				continue
			}
			// No modification time: an opened File would not know it (its
			// open request reads the tail, not the headers we keep).
			entries = append(entries, fs.FileInfoToDirEntry(&objInfo{name: base, size: aws.ToInt64(obj.Size)}))
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// File is an object opened through [FS]: its [Source] (an io.ReaderAt and
// a RangeSource) plus what fs.File asks for.
type File struct {
	*Source
	name string
	pos  int64
}

// Stat returns the object's name and size.
func (f *File) Stat() (fs.FileInfo, error) {
	return &objInfo{name: path.Base(f.name), size: f.Size()}, nil
}

// Read reads sequentially from the start of the object.
func (f *File) Read(p []byte) (int, error) {
	if f.pos >= f.Size() {
		return 0, io.EOF
	}
	n, err := f.ReadAt(p, f.pos)
	f.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

type dirFile struct {
	fs      *FS
	name    string
	entries []fs.DirEntry
	read    bool
}

func (d *dirFile) Stat() (fs.FileInfo, error) {
	return &objInfo{name: path.Base(d.name), dir: true}, nil
}

func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}

func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		entries, err := d.fs.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = entries, true
	}
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(d.entries))
	out := d.entries[:k]
	d.entries = d.entries[k:]
	return out, nil
}

type objInfo struct {
	name string
	size int64
	dir  bool
}

func (i *objInfo) Name() string { return i.name }
func (i *objInfo) Size() int64  { return i.size }
func (i *objInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i *objInfo) ModTime() time.Time { return time.Time{} }
func (i *objInfo) IsDir() bool        { return i.dir }
func (i *objInfo) Sys() any           { return nil }
