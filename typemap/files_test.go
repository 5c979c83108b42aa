package typemap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
)

var testdataRoots = []string{
	"../../shared/testdata/parquet-testing",
	"../../shared/testdata/arrow-testing",
}

// testFiles lists every file under the shared test data, relative to its
// root; the directories must exist (CI always has them).
func testFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range testdataRoots {
		if _, err := os.Stat(root); err != nil {
			t.Fatalf("test data %s: %v", root, err)
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// fileKey names a test file by its path below the test data roots.
func fileKey(p string) string {
	for _, root := range testdataRoots {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Base(root) + "/" + filepath.ToSlash(rel)
		}
	}
	return p
}

// TestFilesAgainstPqarrow maps the schema of every readable Parquet file of
// the test data and compares it with arrow-go's pqarrow, field by field. A
// field where the two differ must be listed in deliberateDiffs with our
// exact rendering; a listed difference that no longer occurs fails too, so
// the table stays true.
func TestFilesAgainstPqarrow(t *testing.T) {
	testshared.Need(t, testdataRoots...)
	used := map[diffKey]bool{}
	var readable int
	for _, p := range testFiles(t) {
		key := fileKey(p)
		md, err := readFooterFile(t, p)
		if err != nil {
			if errors.Is(err, metadata.ErrNotParquet) || errors.Is(err, metadata.ErrEncrypted) || errors.Is(err, metadata.ErrCorrupt) {
				continue
			}
			t.Errorf("%s: ReadFooter: %v", key, err)
			continue
		}
		readable++
		t.Run(key, func(t *testing.T) {
			m, err := ToArrow(md.Schema, md.Meta.KeyValueMetadata, ReadOptions{})
			if err != nil {
				t.Fatalf("ToArrow: %v", err)
			}
			if _, has := md.KeyValue(ArrowSchemaKey); has && m.OriginErr != nil && !strings.Contains(key, "/fuzzing/") {
				t.Errorf("ARROW:schema present but not used: %v", m.OriginErr)
			}
			ours := describeSchema(m.Schema)
			oracle, oerr := pqarrowSchema(p)
			if oerr != nil {
				if os.Getenv("TYPEMAP_DUMP") != "" {
					fmt.Printf("DUMP\t{%q, \"*\"}: {%q, \"\"},\n", key, strings.Join(ours, "; "))
				}
				d, ok := deliberateDiffs[diffKey{key, "*"}]
				if !ok {
					t.Fatalf("pqarrow fails (%v) and the file is not listed", oerr)
				}
				used[diffKey{key, "*"}] = true
				if got := strings.Join(ours, "; "); got != d.ours {
					t.Errorf("ours:\n%s\nwant:\n%s", got, d.ours)
				}
				return
			}
			theirs := describeSchema(oracle)
			if len(ours) != len(theirs) {
				t.Fatalf("%d fields, pqarrow %d", len(ours), len(theirs))
			}
			for i := range ours {
				name := m.Schema.Field(i).Name
				k := diffKey{key, name}
				d, listed := deliberateDiffs[k]
				if listed {
					used[k] = true
					if ours[i] != d.ours {
						t.Errorf("field %d:\n ours %s\n want %s", i, ours[i], d.ours)
					}
					if ours[i] == theirs[i] {
						t.Errorf("field %d is listed as a deliberate difference but equals pqarrow's", i)
					}
					continue
				}
				if ours[i] != theirs[i] && os.Getenv("TYPEMAP_DUMP") != "" {
					fmt.Printf("DUMP\t{%q, %q}: {%q, \"\"},\n", key, name, ours[i])
				}
				if ours[i] != theirs[i] {
					t.Errorf("field %d differs from pqarrow:\n ours    %s\n pqarrow %s", i, ours[i], theirs[i])
				}
			}
		})
	}
	if readable < 100 {
		t.Errorf("only %d readable Parquet files in the test data", readable)
	}
	for k := range deliberateDiffs {
		if !used[k] && !t.Failed() {
			t.Errorf("deliberate difference %v did not occur", k)
		}
	}
}

type diffKey struct{ file, field string }

type deliberateDiff struct {
	ours   string // our rendering (describeField); for field "*", all fields joined by "; "
	reason string // one of the reasons in diffReasons
}

// Reasons for the deliberate differences from pqarrow; docs/type-mapping.md
// lists them with the files.
const (
	reasonInt96          = "INT96 reads as a timestamp without time zone, as Arrow C++ and arrow-rs read it; pqarrow says UTC"
	reasonRepeated       = "an unannotated repeated field is a required list of required elements (LogicalTypes.md, Nested Types), the element named after the field as in Arrow C++; pqarrow makes the elements nullable and names them item"
	reasonArrowSchema    = "ARROW:schema restores a type the stored values can produce (uint32 from INT64, timestamp[s] and time32[s] from MILLIS, timestamp[ns] from MICROS, date64 from DATE, decimal32/64, string_view); pqarrow keeps the Parquet type"
	reasonElementNames   = "list element names are restored from ARROW:schema, so that an Arrow list<item> written and read back is list<item> again"
	reasonGeo            = "GEOMETRY/GEOGRAPHY read as Binary tagged as the GeoArrow geoarrow.wkb extension (crs, crs_type, edges in its metadata, projjson: references resolved); pqarrow drops the annotation"
	reasonOptionalMapKey = "a MAP with an optional key (Presto/Trino/Athena output) is read; a null key is an error at read time; pqarrow rejects the schema"
	reasonUnknownLogical = "an unknown LogicalType leaves the physical type (field metadata comes from ARROW:schema); pqarrow panics"
	reasonInvalidVariant = "a VARIANT group whose shape arrow-go's Variant type rejects reads as its plain struct; pqarrow rejects the schema"
	reasonOldList        = "rule 3 of the LIST backward-compatibility rules: a repeated group whose one field is repeated is the element, so this is list<list<int32>>; pqarrow wraps it in a struct"
)

// deliberateDiffs lists every field where our schema differs from
// pqarrow's, with our exact rendering. Field "*" stands for a file pqarrow
// cannot read at all.
var deliberateDiffs = map[diffKey]deliberateDiff{
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "uint32"}:                                                       {"uint32: uint32", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "timestamp_s_no_tz"}:                                            {"timestamp_s_no_tz: timestamp[s]", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "timestamp_ns_no_tz"}:                                           {"timestamp_ns_no_tz: timestamp[ns]", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "time32_s"}:                                                     {"time32_s: time32[s]", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "date64"}:                                                       {"date64: date64", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "list_uint32"}:                                                  {"list_uint32: list<item: uint32>", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "fixed_size_list_uint32"}:                                       {"fixed_size_list_uint32: fixed_size_list[2]<item: uint32>", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41317.parquet", "map_uint32"}:                                                   {"map_uint32: map<key: utf8 not null, value: uint32>", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "uint32"}:                                                       {"uint32: uint32", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "timestamp_s_no_tz"}:                                            {"timestamp_s_no_tz: timestamp[s]", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "timestamp_ns_no_tz"}:                                           {"timestamp_ns_no_tz: timestamp[ns]", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "time32_s"}:                                                     {"time32_s: time32[s]", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "date64"}:                                                       {"date64: date64", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "list_uint32"}:                                                  {"list_uint32: list<item: uint32>", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "fixed_size_list_uint32"}:                                       {"fixed_size_list_uint32: fixed_size_list[2]<item: uint32>", reasonArrowSchema},
	{"parquet-testing/bad_data/ARROW-GH-41321.parquet", "map_uint32"}:                                                   {"map_uint32: map<key: utf8 not null, value: uint32>", reasonArrowSchema},
	{"parquet-testing/data/aes256/encrypt_columns_plaintext_footer.parquet.encrypted", "int96_field"}:                   {"int96_field: timestamp[ns] not null", reasonInt96},
	{"parquet-testing/data/alltypes_dictionary.parquet", "timestamp_col"}:                                               {"timestamp_col: timestamp[ns]", reasonInt96},
	{"parquet-testing/data/alltypes_plain.parquet", "timestamp_col"}:                                                    {"timestamp_col: timestamp[ns]", reasonInt96},
	{"parquet-testing/data/alltypes_plain.snappy.parquet", "timestamp_col"}:                                             {"timestamp_col: timestamp[ns]", reasonInt96},
	{"parquet-testing/data/alltypes_tiny_pages.parquet", "timestamp_col"}:                                               {"timestamp_col: timestamp[ns]", reasonInt96},
	{"parquet-testing/data/alltypes_tiny_pages_plain.parquet", "timestamp_col"}:                                         {"timestamp_col: timestamp[ns]", reasonInt96},
	{"parquet-testing/data/encrypt_columns_plaintext_footer.parquet.encrypted", "int64_field"}:                          {"int64_field: list<int64_field: int64 not null> not null", reasonRepeated},
	{"parquet-testing/data/encrypt_columns_plaintext_footer.parquet.encrypted", "int96_field"}:                          {"int96_field: timestamp[ns] not null", reasonInt96},
	{"parquet-testing/data/geospatial/crs-arbitrary-value.parquet", "geometry"}:                                         {"geometry: binary {ARROW:extension:metadata={\"crs\":{\"$schema\":\"https://proj.org/schemas/v0.7/projjson.schema.json\",\"type\":\"ProjectedCRS\",\"name\":\"NAD83 / Conus Albers\",\"base_crs\":{\"name\":\"NAD83\",\"datum\":{\"type\":\"GeodeticReferenceFrame\",\"name\":\"North American Datum 1983\",\"ellipsoid\":{\"name\":\"GRS 1980\",\"semi_major_axis\":6378137,\"inverse_flattening\":298.257222101}},\"coordinate_system\":{\"subtype\":\"ellipsoidal\",\"axis\":[{\"name\":\"Geodetic latitude\",\"abbreviation\":\"Lat\",\"direction\":\"north\",\"unit\":\"degree\"},{\"name\":\"Geodetic longitude\",\"abbreviation\":\"Lon\",\"direction\":\"east\",\"unit\":\"degree\"}]},\"id\":{\"authority\":\"EPSG\",\"code\":4269}},\"conversion\":{\"name\":\"Conus Albers\",\"method\":{\"name\":\"Albers Equal Area\",\"id\":{\"authority\":\"EPSG\",\"code\":9822}},\"parameters\":[{\"name\":\"Latitude of false origin\",\"value\":23,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8821}},{\"name\":\"Longitude of false origin\",\"value\":-96,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8822}},{\"name\":\"Latitude of 1st standard parallel\",\"value\":29.5,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8823}},{\"name\":\"Latitude of 2nd standard parallel\",\"value\":45.5,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8824}},{\"name\":\"Easting at false origin\",\"value\":0,\"unit\":\"metre\",\"id\":{\"authority\":\"EPSG\",\"code\":8826}},{\"name\":\"Northing at false origin\",\"value\":0,\"unit\":\"metre\",\"id\":{\"authority\":\"EPSG\",\"code\":8827}}]},\"coordinate_system\":{\"subtype\":\"Cartesian\",\"axis\":[{\"name\":\"Easting\",\"abbreviation\":\"X\",\"direction\":\"east\",\"unit\":\"metre\"},{\"name\":\"Northing\",\"abbreviation\":\"Y\",\"direction\":\"north\",\"unit\":\"metre\"}]},\"scope\":\"Data analysis and small scale data presentation for contiguous lower 48 states.\",\"area\":\"United States (USA) - CONUS onshore - Alabama; Arizona; Arkansas; California; Colorado; Connecticut; Delaware; Florida; Georgia; Idaho; Illinois; Indiana; Iowa; Kansas; Kentucky; Louisiana; Maine; Maryland; Massachusetts; Michigan; Minnesota; Mississippi; Missouri; Montana; Nebraska; Nevada; New Hampshire; New Jersey; New Mexico; New York; North Carolina; North Dakota; Ohio; Oklahoma; Oregon; Pennsylvania; Rhode Island; South Carolina; South Dakota; Tennessee; Texas; Utah; Vermont; Virginia; Washington; West Virginia; Wisconsin; Wyoming.\",\"bbox\":{\"south_latitude\":24.41,\"west_longitude\":-124.79,\"north_latitude\":49.38,\"east_longitude\":-66.91},\"id\":{\"authority\":\"EPSG\",\"code\":5070}},\"crs_type\":\"projjson\"}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/crs-default.parquet", "geometry"}:                                                 {"geometry: binary {ARROW:extension:metadata={}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/crs-geography.parquet", "geography"}:                                              {"geography: binary {ARROW:extension:metadata={\"edges\":\"spherical\"}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/crs-projjson.parquet", "geometry"}:                                                {"geometry: binary {ARROW:extension:metadata={\"crs\":{\"$schema\":\"https://proj.org/schemas/v0.7/projjson.schema.json\",\"type\":\"ProjectedCRS\",\"name\":\"NAD83 / Conus Albers\",\"base_crs\":{\"name\":\"NAD83\",\"datum\":{\"type\":\"GeodeticReferenceFrame\",\"name\":\"North American Datum 1983\",\"ellipsoid\":{\"name\":\"GRS 1980\",\"semi_major_axis\":6378137,\"inverse_flattening\":298.257222101}},\"coordinate_system\":{\"subtype\":\"ellipsoidal\",\"axis\":[{\"name\":\"Geodetic latitude\",\"abbreviation\":\"Lat\",\"direction\":\"north\",\"unit\":\"degree\"},{\"name\":\"Geodetic longitude\",\"abbreviation\":\"Lon\",\"direction\":\"east\",\"unit\":\"degree\"}]},\"id\":{\"authority\":\"EPSG\",\"code\":4269}},\"conversion\":{\"name\":\"Conus Albers\",\"method\":{\"name\":\"Albers Equal Area\",\"id\":{\"authority\":\"EPSG\",\"code\":9822}},\"parameters\":[{\"name\":\"Latitude of false origin\",\"value\":23,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8821}},{\"name\":\"Longitude of false origin\",\"value\":-96,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8822}},{\"name\":\"Latitude of 1st standard parallel\",\"value\":29.5,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8823}},{\"name\":\"Latitude of 2nd standard parallel\",\"value\":45.5,\"unit\":\"degree\",\"id\":{\"authority\":\"EPSG\",\"code\":8824}},{\"name\":\"Easting at false origin\",\"value\":0,\"unit\":\"metre\",\"id\":{\"authority\":\"EPSG\",\"code\":8826}},{\"name\":\"Northing at false origin\",\"value\":0,\"unit\":\"metre\",\"id\":{\"authority\":\"EPSG\",\"code\":8827}}]},\"coordinate_system\":{\"subtype\":\"Cartesian\",\"axis\":[{\"name\":\"Easting\",\"abbreviation\":\"X\",\"direction\":\"east\",\"unit\":\"metre\"},{\"name\":\"Northing\",\"abbreviation\":\"Y\",\"direction\":\"north\",\"unit\":\"metre\"}]},\"scope\":\"Data analysis and small scale data presentation for contiguous lower 48 states.\",\"area\":\"United States (USA) - CONUS onshore - Alabama; Arizona; Arkansas; California; Colorado; Connecticut; Delaware; Florida; Georgia; Idaho; Illinois; Indiana; Iowa; Kansas; Kentucky; Louisiana; Maine; Maryland; Massachusetts; Michigan; Minnesota; Mississippi; Missouri; Montana; Nebraska; Nevada; New Hampshire; New Jersey; New Mexico; New York; North Carolina; North Dakota; Ohio; Oklahoma; Oregon; Pennsylvania; Rhode Island; South Carolina; South Dakota; Tennessee; Texas; Utah; Vermont; Virginia; Washington; West Virginia; Wisconsin; Wyoming.\",\"bbox\":{\"south_latitude\":24.41,\"west_longitude\":-124.79,\"north_latitude\":49.38,\"east_longitude\":-66.91},\"id\":{\"authority\":\"EPSG\",\"code\":5070}},\"crs_type\":\"projjson\"}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/crs-srid.parquet", "geometry"}:                                                    {"geometry: binary {ARROW:extension:metadata={\"crs\":\"5070\",\"crs_type\":\"srid\"}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/geography-lines.parquet", "geometry"}:                                             {"geometry: binary {ARROW:extension:metadata={\"edges\":\"spherical\"}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/geography-points.parquet", "geometry"}:                                            {"geometry: binary {ARROW:extension:metadata={\"edges\":\"spherical\"}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/geography-polygons.parquet", "geometry"}:                                          {"geometry: binary {ARROW:extension:metadata={\"edges\":\"spherical\"}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/geospatial-with-nan.parquet", "geometry"}:                                         {"geometry: binary {ARROW:extension:metadata={}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/geospatial/geospatial.parquet", "geometry"}:                                                  {"geometry: binary {ARROW:extension:metadata={}, ARROW:extension:name=geoarrow.wkb}", reasonGeo},
	{"parquet-testing/data/incorrect_map_schema.parquet", "*"}:                                                          {"my_map: map<key: utf8 not null, value: utf8>", reasonOptionalMapKey},
	{"parquet-testing/data/int96_from_spark.parquet", "a"}:                                                              {"a: timestamp[ns]", reasonInt96},
	{"parquet-testing/data/old_list_structure.parquet", "a"}:                                                            {"a: list<array: list<array: int32 not null> not null> not null", reasonOldList},
	{"parquet-testing/data/repeated_no_annotation.parquet", "phoneNumbers"}:                                             {"phoneNumbers: struct<phone: list<phone: struct<number: int64 not null, kind: utf8> not null> not null>", reasonRepeated},
	{"parquet-testing/data/repeated_primitive_no_list.parquet", "Int32_list"}:                                           {"Int32_list: list<Int32_list: int32 not null> not null", reasonRepeated},
	{"parquet-testing/data/repeated_primitive_no_list.parquet", "String_list"}:                                          {"String_list: list<String_list: utf8 not null> not null", reasonRepeated},
	{"parquet-testing/data/repeated_primitive_no_list.parquet", "group_of_lists"}:                                       {"group_of_lists: struct<Int32_list_in_group: list<Int32_list_in_group: int32 not null> not null, String_list_in_group: list<String_list_in_group: utf8 not null> not null> not null", reasonRepeated},
	{"parquet-testing/data/unknown-logical-type.parquet", "*"}:                                                          {"column with known type: utf8; column with unknown type: binary {ARROW:extension:metadata={}, ARROW:extension:name=geoarrow.wkb}", reasonUnknownLogical},
	{"parquet-testing/shredded_variant/case-084-INVALID.parquet", "*"}:                                                  {"id: int32 not null {PARQUET:field_id=1}; var: struct<metadata: binary not null, value: binary, typed_value: struct<a: struct<value: binary, typed_value: int32>, b: struct<value: binary, typed_value: utf8>, c: struct<value: binary, typed_value: float64>, d: struct<value: binary, typed_value: bool>>> {PARQUET:field_id=2}", reasonInvalidVariant},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-dictbitwidth-5882232959270912", "int64_field"}:            {"int64_field: list<int64_field: int64 not null> not null", reasonRepeated},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-dictbitwidth-5882232959270912", "int96_field"}:            {"int96_field: timestamp[ns] not null", reasonInt96},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_8"}:  {"col_8: decimal64(12, 3)", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_9"}:  {"col_9: decimal32(7, 3)", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_10"}: {"col_10: timestamp[s, tz=UTC]", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_14"}: {"col_14: time32[s]", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_19"}: {"col_19: date64", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_22"}: {"col_22: string_view", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_24"}: {"col_24: list<item: int64> not null", reasonElementNames},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_25"}: {"col_25: large_list<item: int64> not null", reasonElementNames},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-4612343993794560", "col_27"}: {"col_27: list<item: list<item: int64>>", reasonElementNames},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-5742713808093184", "value"}:  {"value: list<value: decimal(13, 2) not null> not null", reasonRepeated},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_8"}:  {"col_8: decimal64(12, 3)", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_9"}:  {"col_9: decimal32(7, 3)", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_10"}: {"col_10: timestamp[s, tz=UTC]", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_14"}: {"col_14: time32[s]", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_19"}: {"col_19: date64", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_22"}: {"col_22: string_view", reasonArrowSchema},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_24"}: {"col_24: list<item: int64> not null", reasonElementNames},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_25"}: {"col_25: large_list<item: int64> not null", reasonElementNames},
	{"arrow-testing/data/parquet/fuzzing/clusterfuzz-testcase-minimized-parquet-arrow-fuzz-6189954201092096", "col_27"}: {"col_27: list<item: list<item: int64>>", reasonElementNames},
}
