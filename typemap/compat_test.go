package typemap

import (
	"testing"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// The examples of the LIST and MAP sections of LogicalTypes.md, one test
// each, at apache/parquet-format commit
// 0038848a0855e48eccd416d7340ec929a6d23f27:
// https://github.com/apache/parquet-format/blob/0038848a0855e48eccd416d7340ec929a6d23f27/LogicalTypes.md#nested-types
// Each schema is tried with the annotation written as LogicalType only and
// as the legacy ConvertedType only; both must give the exact same Arrow field.

type annotate func(lt *format.LogicalType, ct format.ConvertedType) func(*el)

var annotationForms = []struct {
	name string
	ann  annotate
}{
	{"LogicalType", func(lt *format.LogicalType, _ format.ConvertedType) func(*el) { return withLogical(lt) }},
	{"ConvertedType", func(_ *format.LogicalType, ct format.ConvertedType) func(*el) { return withConverted(ct) }},
}

func listAnn(a annotate) func(*el) { return a(ltList, format.ConvertedType_LIST) }
func mapAnn(a annotate) func(*el)  { return a(ltMap, format.ConvertedType_MAP) }
func strAnn(a annotate) func(*el)  { return a(ltString, format.ConvertedType_UTF8) }

// checkCompat maps the schema built by mk (without the root) under both
// annotation forms and compares the single top-level field with want.
func checkCompat(t *testing.T, want string, mk func(a annotate) []*el) {
	t.Helper()
	for _, form := range annotationForms {
		t.Run(form.name, func(t *testing.T) {
			elems := mk(form.ann)
			elems = append([]*el{root(1)}, elems...)
			m, err := mapSchema(t, elems, nil, ReadOptions{})
			if err != nil {
				t.Fatalf("ToArrow: %v", err)
			}
			if got := describeField(m.Schema.Field(0)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// "A repeated field that is neither contained by a LIST- or MAP-annotated
// group nor annotated by LIST or MAP should be interpreted as a required list
// of required elements": repeated int32 num;
func TestUnannotatedRepeatedPrimitive(t *testing.T) {
	checkCompat(t, "num: list<num: int32 not null> not null", func(a annotate) []*el {
		return []*el{prim("num", rep, format.Type_INT32)}
	})
}

// repeated group my_list { required int32 num; optional binary str (STRING); }
func TestUnannotatedRepeatedGroup(t *testing.T) {
	checkCompat(t, "my_list: list<my_list: struct<num: int32 not null, str: utf8> not null> not null", func(a annotate) []*el {
		return []*el{
			group("my_list", rep, 2),
			prim("num", req, format.Type_INT32),
			prim("str", opt, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}

// List<String> (list non-null, elements nullable)
func TestListNonNullListNullableElements(t *testing.T) {
	checkCompat(t, "my_list: list<element: utf8> not null", func(a annotate) []*el {
		return []*el{
			group("my_list", req, 1, listAnn(a)),
			group("list", rep, 1),
			prim("element", opt, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}

// List<String> (list nullable, elements non-null)
func TestListNullableListNonNullElements(t *testing.T) {
	checkCompat(t, "my_list: list<element: utf8 not null>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			group("list", rep, 1),
			prim("element", req, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}

// List<List<Integer>>: array_of_arrays
func TestListOfLists(t *testing.T) {
	checkCompat(t, "array_of_arrays: list<element: list<element: int32 not null> not null>", func(a annotate) []*el {
		return []*el{
			group("array_of_arrays", opt, 1, listAnn(a)),
			group("list", rep, 1),
			group("element", req, 1, listAnn(a)),
			group("list", rep, 1),
			prim("element", req, format.Type_INT32),
		}
	})
}

// Names are not enforced: the repeated group is named element, its field
// str; a nullable list of non-null strings.
func TestListNamesNotEnforced(t *testing.T) {
	checkCompat(t, "my_list: list<str: utf8 not null>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			group("element", rep, 1),
			prim("str", req, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}

// Rule 1: List<Integer> (nullable list, non-null elements)
func TestListRule1RepeatedPrimitive(t *testing.T) {
	checkCompat(t, "my_list: list<element: int32 not null>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			prim("element", rep, format.Type_INT32),
		}
	})
}

// Rule 2: List<Tuple<String, Integer>> (nullable list, non-null elements)
func TestListRule2GroupOfSeveralFields(t *testing.T) {
	checkCompat(t, "my_list: list<element: struct<str: utf8 not null, num: int32 not null> not null>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			group("element", rep, 2),
			prim("str", req, format.Type_BYTE_ARRAY, strAnn(a)),
			prim("num", req, format.Type_INT32),
		}
	})
}

// Rule 3: List<List<Integer>> (nullable outer list, non-null elements): the
// 2-level form of old_list_structure.parquet.
func TestListRule3OneRepeatedField(t *testing.T) {
	checkCompat(t, "my_list: list<array: list<array: int32 not null> not null>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			group("array", rep, 1, listAnn(a)),
			prim("array", rep, format.Type_INT32),
		}
	})
}

// Rule 4: List<OneTuple<String>>, the repeated group named array.
func TestListRule4Array(t *testing.T) {
	checkCompat(t, "my_list: list<array: struct<str: utf8 not null> not null>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			group("array", rep, 1),
			prim("str", req, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}

// Rule 4: List<OneTuple<String>>, the repeated group named my_list_tuple.
func TestListRule4Tuple(t *testing.T) {
	checkCompat(t, "my_list: list<my_list_tuple: struct<str: utf8 not null> not null>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			group("my_list_tuple", rep, 1),
			prim("str", req, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}

// Rule 5: List<String> (nullable list, nullable elements)
func TestListRule5(t *testing.T) {
	checkCompat(t, "my_list: list<str: utf8>", func(a annotate) []*el {
		return []*el{
			group("my_list", opt, 1, listAnn(a)),
			group("element", rep, 1),
			prim("str", opt, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}

// Map<String, Integer>: the standard 3-level MAP.
func TestMapStandard(t *testing.T) {
	checkCompat(t, "my_map: map<key: utf8 not null, value: int32> not null", func(a annotate) []*el {
		return []*el{
			group("my_map", req, 1, mapAnn(a)),
			group("key_value", rep, 2),
			prim("key", req, format.Type_BYTE_ARRAY, strAnn(a)),
			prim("value", opt, format.Type_INT32),
		}
	})
}

// Map<String, Integer> (nullable map, non-null values): misnamed fields are
// key and value by position.
func TestMapNamesByPosition(t *testing.T) {
	checkCompat(t, "my_map: map<key: utf8 not null, value: int32 not null>", func(a annotate) []*el {
		return []*el{
			group("my_map", opt, 1, mapAnn(a)),
			group("map", rep, 2),
			prim("str", req, format.Type_BYTE_ARRAY, strAnn(a)),
			prim("num", req, format.Type_INT32),
		}
	})
}

// Map<String, Integer> (nullable map, nullable values): MAP_KEY_VALUE in
// place of MAP, not contained by a MAP group.
func TestMapKeyValueInPlaceOfMap(t *testing.T) {
	checkCompat(t, "my_map: map<key: utf8 not null, value: int32>", func(a annotate) []*el {
		return []*el{
			group("my_map", opt, 1, withConverted(format.ConvertedType_MAP_KEY_VALUE)),
			group("map", rep, 2),
			prim("key", req, format.Type_BYTE_ARRAY, strAnn(a)),
			prim("value", opt, format.Type_INT32),
		}
	})
}

// The MAP "value" field "can be required, optional, or omitted": without a
// value the map reads as a list of its keys (Arrow has no set type).
func TestMapWithoutValue(t *testing.T) {
	checkCompat(t, "my_set: list<key: int32 not null> not null", func(a annotate) []*el {
		return []*el{
			group("my_set", req, 1, mapAnn(a)),
			group("key_value", rep, 1),
			prim("key", req, format.Type_INT32),
		}
	})
}

// An optional key (incorrect_map_schema.parquet): read, with a non-null
// Arrow key whose Node is the optional key node.
func TestMapOptionalKey(t *testing.T) {
	checkCompat(t, "my_map: map<key: utf8 not null, value: utf8>", func(a annotate) []*el {
		return []*el{
			group("my_map", opt, 1, mapAnn(a), withConverted(format.ConvertedType_MAP)),
			group("key_value", rep, 2, withConverted(format.ConvertedType_MAP_KEY_VALUE)),
			prim("key", opt, format.Type_BYTE_ARRAY, strAnn(a)),
			prim("value", opt, format.Type_BYTE_ARRAY, strAnn(a)),
		}
	})
}
