package metadata

// Struct readers of the compact FileMetaData reader (compact.go), one per
// struct of parquet.thrift that a FileMetaData can hold. Each follows the
// generated Read: a field is taken only when both its id and its wire type
// match, anything else is skipped, and required fields are checked at the
// end.

import (
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/metadata/format"
)

func (r *compactReader) fileMetaData(x *format.FileMetaData) error {
	var last int16
	var version, schema, numRows, rowGroups bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			x.Version, err = r.i32()
			version = true
		case id == 2 && t == thrift.LIST:
			x.Schema, err = structList(r, &r.elems, &r.elemPtrs, (*compactReader).schemaElement)
			schema = true
		case id == 3 && t == thrift.I64:
			x.NumRows, err = r.i64()
			numRows = true
		case id == 4 && t == thrift.LIST:
			x.RowGroups, err = structList(r, &r.groups, &r.groupPtrs, (*compactReader).rowGroup)
			rowGroups = true
		case id == 5 && t == thrift.LIST:
			x.KeyValueMetadata, err = structList(r, &r.kvs, &r.kvPtrs, (*compactReader).keyValue)
		case id == 6 && t == thrift.STRING:
			x.CreatedBy, err = r.optStr()
		case id == 7 && t == thrift.LIST:
			x.ColumnOrders, err = structList(r, &r.orders, &r.orderPtrs, (*compactReader).columnOrder)
		case id == 8 && t == thrift.STRUCT:
			x.EncryptionAlgorithm = &format.EncryptionAlgorithm{}
			err = r.encryptionAlgorithm(x.EncryptionAlgorithm)
		case id == 9 && t == thrift.STRING:
			x.FooterSigningKeyMetadata, err = r.binary()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case !version:
		return missing("FileMetaData.version")
	case !schema:
		return missing("FileMetaData.schema")
	case !numRows:
		return missing("FileMetaData.num_rows")
	case !rowGroups:
		return missing("FileMetaData.row_groups")
	}
	return nil
}

func (r *compactReader) optStr() (*string, error) {
	v, err := r.str()
	return r.strs.ptr(v), err
}

func (r *compactReader) optI32() (*int32, error) {
	v, err := r.i32()
	return r.i32s.ptr(v), err
}

func (r *compactReader) optI64() (*int64, error) {
	v, err := r.i64()
	return r.i64s.ptr(v), err
}

func (r *compactReader) keyValue(x *format.KeyValue) error {
	var last int16
	var key bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.STRING:
			x.Key, err = r.str()
			key = true
		case id == 2 && t == thrift.STRING:
			x.Value, err = r.optStr()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !key {
		return missing("KeyValue.key")
	}
	return nil
}

func (r *compactReader) columnOrder(x *format.ColumnOrder) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRUCT:
			x.TYPE_ORDER = &format.TypeDefinedOrder{}
			err = r.emptyStruct()
		case id == 2 && t == thrift.STRUCT:
			x.IEEE_754_TOTAL_ORDER = &format.IEEE754TotalOrder{}
			err = r.emptyStruct()
		case id == 3 && t == thrift.STRUCT:
			x.INT96_TIMESTAMP_ORDER = &format.Int96TimestampOrder{}
			err = r.emptyStruct()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) encryptionAlgorithm(x *format.EncryptionAlgorithm) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRUCT:
			v := &format.AesGcmV1{}
			x.AES_GCM_V1 = v
			err = r.aesGcm(&v.AadPrefix, &v.AadFileUnique, &v.SupplyAadPrefix)
		case id == 2 && t == thrift.STRUCT:
			v := &format.AesGcmCtrV1{}
			x.AES_GCM_CTR_V1 = v
			err = r.aesGcm(&v.AadPrefix, &v.AadFileUnique, &v.SupplyAadPrefix)
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

// aesGcm reads an AesGcmV1 or AesGcmCtrV1, which share their fields.
func (r *compactReader) aesGcm(prefix, unique *[]byte, supply **bool) error {
	var last int16
	for {
		t, id, bv, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRING:
			*prefix, err = r.binary()
		case id == 2 && t == thrift.STRING:
			*unique, err = r.binary()
		case id == 3 && t == thrift.BOOL:
			*supply = r.bools.ptr(bv)
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) rowGroup(x *format.RowGroup) error {
	var last int16
	var columns, totalByteSize, numRows bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.LIST:
			x.Columns, err = structList(r, &r.chunks, &r.chunkPtrs, (*compactReader).columnChunk)
			columns = true
		case id == 2 && t == thrift.I64:
			x.TotalByteSize, err = r.i64()
			totalByteSize = true
		case id == 3 && t == thrift.I64:
			x.NumRows, err = r.i64()
			numRows = true
		case id == 4 && t == thrift.LIST:
			x.SortingColumns, err = structList(r, &r.sorts, &r.sortPtrs, (*compactReader).sortingColumn)
		case id == 5 && t == thrift.I64:
			x.FileOffset, err = r.optI64()
		case id == 6 && t == thrift.I64:
			x.TotalCompressedSize, err = r.optI64()
		case id == 7 && t == thrift.I16:
			var v int32
			v, err = r.i32()
			o := int16(v)
			x.Ordinal = &o
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case !columns:
		return missing("RowGroup.columns")
	case !totalByteSize:
		return missing("RowGroup.total_byte_size")
	case !numRows:
		return missing("RowGroup.num_rows")
	}
	return nil
}

func (r *compactReader) sortingColumn(x *format.SortingColumn) error {
	var last int16
	var idx, desc, nullsFirst bool
	for {
		t, id, bv, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			x.ColumnIdx, err = r.i32()
			idx = true
		case id == 2 && t == thrift.BOOL:
			x.Descending, desc = bv, true
		case id == 3 && t == thrift.BOOL:
			x.NullsFirst, nullsFirst = bv, true
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !idx || !desc || !nullsFirst {
		return missing("SortingColumn field")
	}
	return nil
}

func (r *compactReader) columnChunk(x *format.ColumnChunk) error {
	var last int16
	var fileOffset bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.STRING:
			x.FilePath, err = r.optStr()
		case id == 2 && t == thrift.I64:
			x.FileOffset, err = r.i64()
			fileOffset = true
		case id == 3 && t == thrift.STRUCT:
			x.MetaData = r.metas.next()
			err = r.columnMetaData(x.MetaData)
		case id == 4 && t == thrift.I64:
			x.OffsetIndexOffset, err = r.optI64()
		case id == 5 && t == thrift.I32:
			x.OffsetIndexLength, err = r.optI32()
		case id == 6 && t == thrift.I64:
			x.ColumnIndexOffset, err = r.optI64()
		case id == 7 && t == thrift.I32:
			x.ColumnIndexLength, err = r.optI32()
		case id == 8 && t == thrift.STRUCT:
			x.CryptoMetadata = &format.ColumnCryptoMetaData{}
			err = r.columnCryptoMetaData(x.CryptoMetadata)
		case id == 9 && t == thrift.STRING:
			x.EncryptedColumnMetadata, err = r.binary()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !fileOffset {
		return missing("ColumnChunk.file_offset")
	}
	return nil
}

func (r *compactReader) columnCryptoMetaData(x *format.ColumnCryptoMetaData) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRUCT:
			x.ENCRYPTION_WITH_FOOTER_KEY = &format.EncryptionWithFooterKey{}
			err = r.emptyStruct()
		case id == 2 && t == thrift.STRUCT:
			x.ENCRYPTION_WITH_COLUMN_KEY = &format.EncryptionWithColumnKey{}
			err = r.encryptionWithColumnKey(x.ENCRYPTION_WITH_COLUMN_KEY)
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) encryptionWithColumnKey(x *format.EncryptionWithColumnKey) error {
	var last int16
	var path bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.LIST:
			x.PathInSchema, err = r.strList()
			path = true
		case id == 2 && t == thrift.STRING:
			x.KeyMetadata, err = r.binary()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !path {
		return missing("EncryptionWithColumnKey.path_in_schema")
	}
	return nil
}

func (r *compactReader) columnMetaData(x *format.ColumnMetaData) error {
	var last int16
	// Required fields 1-7 and 9, as bits.
	var have uint16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			var v int32
			v, err = r.i32()
			x.Type = format.Type(v)
		case id == 2 && t == thrift.LIST:
			x.Encodings, err = i32List(r, &r.encs)
		case id == 3 && t == thrift.LIST:
			x.PathInSchema, err = r.strList()
		case id == 4 && t == thrift.I32:
			var v int32
			v, err = r.i32()
			x.Codec = format.CompressionCodec(v)
		case id == 5 && t == thrift.I64:
			x.NumValues, err = r.i64()
		case id == 6 && t == thrift.I64:
			x.TotalUncompressedSize, err = r.i64()
		case id == 7 && t == thrift.I64:
			x.TotalCompressedSize, err = r.i64()
		case id == 8 && t == thrift.LIST:
			x.KeyValueMetadata, err = structList(r, &r.kvs, &r.kvPtrs, (*compactReader).keyValue)
		case id == 9 && t == thrift.I64:
			x.DataPageOffset, err = r.i64()
		case id == 10 && t == thrift.I64:
			x.IndexPageOffset, err = r.optI64()
		case id == 11 && t == thrift.I64:
			x.DictionaryPageOffset, err = r.optI64()
		case id == 12 && t == thrift.STRUCT:
			x.Statistics = r.stats.next()
			err = r.statistics(x.Statistics)
		case id == 13 && t == thrift.LIST:
			x.EncodingStats, err = structList(r, &r.pageStats, &r.pageSPtrs, (*compactReader).pageEncodingStats)
		case id == 14 && t == thrift.I64:
			x.BloomFilterOffset, err = r.optI64()
		case id == 15 && t == thrift.I32:
			x.BloomFilterLength, err = r.optI32()
		case id == 16 && t == thrift.STRUCT:
			x.SizeStatistics = &format.SizeStatistics{}
			err = r.sizeStatistics(x.SizeStatistics)
		case id == 17 && t == thrift.STRUCT:
			x.GeospatialStatistics = &format.GeospatialStatistics{}
			err = r.geospatialStatistics(x.GeospatialStatistics)
		default:
			err = r.skipField(t)
			id = 0
		}
		if err != nil {
			return err
		}
		if id >= 1 && id <= 9 {
			have |= 1 << id
		}
	}
	const required = 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<9
	if have&required != required {
		return missing("ColumnMetaData field")
	}
	return nil
}

func (r *compactReader) statistics(x *format.Statistics) error {
	var last int16
	for {
		t, id, bv, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRING:
			x.Max, err = r.binary()
		case id == 2 && t == thrift.STRING:
			x.Min, err = r.binary()
		case id == 3 && t == thrift.I64:
			x.NullCount, err = r.optI64()
		case id == 4 && t == thrift.I64:
			x.DistinctCount, err = r.optI64()
		case id == 5 && t == thrift.STRING:
			x.MaxValue, err = r.binary()
		case id == 6 && t == thrift.STRING:
			x.MinValue, err = r.binary()
		case id == 7 && t == thrift.BOOL:
			x.IsMaxValueExact = r.bools.ptr(bv)
		case id == 8 && t == thrift.BOOL:
			x.IsMinValueExact = r.bools.ptr(bv)
		case id == 9 && t == thrift.I64:
			x.NanCount, err = r.optI64()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) pageEncodingStats(x *format.PageEncodingStats) error {
	var last int16
	var pageType, encoding, count bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		var v int32
		switch {
		case id == 1 && t == thrift.I32:
			v, err = r.i32()
			x.PageType, pageType = format.PageType(v), true
		case id == 2 && t == thrift.I32:
			v, err = r.i32()
			x.Encoding, encoding = format.Encoding(v), true
		case id == 3 && t == thrift.I32:
			x.Count, err = r.i32()
			count = true
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !pageType || !encoding || !count {
		return missing("PageEncodingStats field")
	}
	return nil
}

func (r *compactReader) sizeStatistics(x *format.SizeStatistics) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.I64:
			x.UnencodedByteArrayDataBytes, err = r.optI64()
		case id == 2 && t == thrift.LIST:
			x.RepetitionLevelHistogram, err = r.i64List()
		case id == 3 && t == thrift.LIST:
			x.DefinitionLevelHistogram, err = r.i64List()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) geospatialStatistics(x *format.GeospatialStatistics) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRUCT:
			x.Bbox = &format.BoundingBox{}
			err = r.boundingBox(x.Bbox)
		case id == 2 && t == thrift.LIST:
			x.GeospatialTypes, err = i32List(r, &r.i32s)
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) boundingBox(x *format.BoundingBox) error {
	var last int16
	var have uint8
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		if t != thrift.DOUBLE || id < 1 || id > 8 {
			if err := r.skipField(t); err != nil {
				return err
			}
			continue
		}
		v, err := r.double()
		if err != nil {
			return err
		}
		switch id {
		case 1:
			x.Xmin = v
		case 2:
			x.Xmax = v
		case 3:
			x.Ymin = v
		case 4:
			x.Ymax = v
		case 5:
			x.Zmin = &v
		case 6:
			x.Zmax = &v
		case 7:
			x.Mmin = &v
		case 8:
			x.Mmax = &v
		}
		have |= 1 << (id - 1)
	}
	if have&0x0f != 0x0f {
		return missing("BoundingBox field")
	}
	return nil
}
