package encryption_test

import (
	"fmt"
	"os"

	"github.com/arrowpq/arrowpq/encryption"
)

// ExampleReadFooter opens an encrypted file with a footer key and a column
// key, and gets the decryptor of one column chunk for its pages.
func ExampleReadFooter() {
	f, err := os.Open("data.parquet.encrypted")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	st, _ := f.Stat()
	file, dec, err := encryption.ReadFooter(f, st.Size(), &encryption.DecryptionOptions{
		FooterKey:  []byte("0123456789012345"),
		ColumnKeys: map[string][]byte{"double_field": []byte("1234567890123450")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(file.NumRows(), dec.Algorithm(), dec.FooterVerified())
	chunk, err := dec.Chunk(0, 0) // nil when the column is stored in plaintext
	fmt.Println(chunk != nil, err)
}

// ExampleAppendModuleAAD builds the AAD of the third data page of column 1
// in row group 0.
func ExampleAppendModuleAAD() {
	aad, _ := encryption.AppendModuleAAD(nil, []byte("prefix|unique"), encryption.ModuleDataPage, 0, 1, 2)
	fmt.Printf("%q\n", aad)
	// Output: "prefix|unique\x02\x00\x00\x01\x00\x02\x00"
}

// ExampleNewKMSKeyRetriever wraps a data key the way parquet-java's key
// tools and pyarrow do (double wrapping, key material stored in the file)
// and reads it back through a KMS client.
func ExampleNewKMSKeyRetriever() {
	kms := &encryption.InMemoryKMS{MasterKeys: map[string][]byte{"kf": []byte("0123456789012345")}}
	km, err := encryption.NewKeyMaterial(kms, []byte("data key 16bytes"), "kf", encryption.WrapOptions{FooterKey: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	keyMetadata := km.InternalKeyMetadata() // stored in the file
	key, err := encryption.NewKMSKeyRetriever(kms, nil)(keyMetadata)
	fmt.Printf("%s %v\n", key, err)
	// Output: data key 16bytes <nil>
}

// ExampleNewFileEncryptor sets up uniform encryption (every column with
// the footer key) and encrypts one page.
func ExampleNewFileEncryptor() {
	fe, err := encryption.NewFileEncryptor(encryption.EncryptionOptions{
		Algorithm: encryption.AESGCMCTRV1,
		FooterKey: []byte("0123456789012345"),
		AADPrefix: []byte("table.2026-11-25.part0"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ce := fe.Chunk(0, 0, "a")
	frame, err := ce.Page(nil, []byte("compressed page body"), false, 0)
	fmt.Println(fe.Magic(), len(frame) == ce.PageSize(20), err)
	// Output: PARE true <nil>
}
