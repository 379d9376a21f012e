//go:build !purego

#include "textflag.h"

// func addRowsAVX(y, coefs []float32, offs []int, w []float32)
//
// For each 64 floats of y: load them into eight registers, add coefs[r] times the same 64
// floats of each row r in turn (multiply, then add), store them once.
TEXT ·addRowsAVX(SB), NOSPLIT, $0-96
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ coefs_base+24(FP), SI
	MOVQ coefs_len+32(FP), BX
	MOVQ offs_base+48(FP), R8
	MOVQ w_base+72(FP), R9
	SHRQ $6, CX
	JZ   done
	TESTQ BX, BX
	JZ   done
	XORQ R10, R10 // byte offset of this chunk in y and in each row

chunk:
	VMOVUPS 0(DI)(R10*1), Y0
	VMOVUPS 32(DI)(R10*1), Y1
	VMOVUPS 64(DI)(R10*1), Y2
	VMOVUPS 96(DI)(R10*1), Y3
	VMOVUPS 128(DI)(R10*1), Y4
	VMOVUPS 160(DI)(R10*1), Y5
	VMOVUPS 192(DI)(R10*1), Y6
	VMOVUPS 224(DI)(R10*1), Y7
	XORQ R11, R11

row:
	VBROADCASTSS (SI)(R11*4), Y8
	MOVQ (R8)(R11*8), R12
	LEAQ (R9)(R12*4), R13
	ADDQ R10, R13
	VMULPS 0(R13), Y8, Y9
	VADDPS Y9, Y0, Y0
	VMULPS 32(R13), Y8, Y10
	VADDPS Y10, Y1, Y1
	VMULPS 64(R13), Y8, Y11
	VADDPS Y11, Y2, Y2
	VMULPS 96(R13), Y8, Y12
	VADDPS Y12, Y3, Y3
	VMULPS 128(R13), Y8, Y9
	VADDPS Y9, Y4, Y4
	VMULPS 160(R13), Y8, Y10
	VADDPS Y10, Y5, Y5
	VMULPS 192(R13), Y8, Y11
	VADDPS Y11, Y6, Y6
	VMULPS 224(R13), Y8, Y12
	VADDPS Y12, Y7, Y7
	INCQ R11
	CMPQ R11, BX
	JL   row

	VMOVUPS Y0, 0(DI)(R10*1)
	VMOVUPS Y1, 32(DI)(R10*1)
	VMOVUPS Y2, 64(DI)(R10*1)
	VMOVUPS Y3, 96(DI)(R10*1)
	VMOVUPS Y4, 128(DI)(R10*1)
	VMOVUPS Y5, 160(DI)(R10*1)
	VMOVUPS Y6, 192(DI)(R10*1)
	VMOVUPS Y7, 224(DI)(R10*1)
	ADDQ $256, R10
	DECQ CX
	JNZ  chunk

done:
	VZEROUPPER
	RET

// func addRowsAVX512(y, coefs []float32, offs []int, w []float32)
//
// For each 128 floats of y: load them into eight registers, add coefs[r] times the same 128
// floats of each row r in turn (multiply, then add), store them once.
TEXT ·addRowsAVX512(SB), NOSPLIT, $0-96
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ coefs_base+24(FP), SI
	MOVQ coefs_len+32(FP), BX
	MOVQ offs_base+48(FP), R8
	MOVQ w_base+72(FP), R9
	SHRQ $7, CX
	JZ   done
	TESTQ BX, BX
	JZ   done
	XORQ R10, R10 // byte offset of this chunk in y and in each row

chunk:
	VMOVUPS 0(DI)(R10*1), Z0
	VMOVUPS 64(DI)(R10*1), Z1
	VMOVUPS 128(DI)(R10*1), Z2
	VMOVUPS 192(DI)(R10*1), Z3
	VMOVUPS 256(DI)(R10*1), Z4
	VMOVUPS 320(DI)(R10*1), Z5
	VMOVUPS 384(DI)(R10*1), Z6
	VMOVUPS 448(DI)(R10*1), Z7
	XORQ R11, R11

row:
	VBROADCASTSS (SI)(R11*4), Z8
	MOVQ (R8)(R11*8), R12
	LEAQ (R9)(R12*4), R13
	ADDQ R10, R13
	VMULPS 0(R13), Z8, Z9
	VADDPS Z9, Z0, Z0
	VMULPS 64(R13), Z8, Z10
	VADDPS Z10, Z1, Z1
	VMULPS 128(R13), Z8, Z11
	VADDPS Z11, Z2, Z2
	VMULPS 192(R13), Z8, Z12
	VADDPS Z12, Z3, Z3
	VMULPS 256(R13), Z8, Z9
	VADDPS Z9, Z4, Z4
	VMULPS 320(R13), Z8, Z10
	VADDPS Z10, Z5, Z5
	VMULPS 384(R13), Z8, Z11
	VADDPS Z11, Z6, Z6
	VMULPS 448(R13), Z8, Z12
	VADDPS Z12, Z7, Z7
	INCQ R11
	CMPQ R11, BX
	JL   row

	VMOVUPS Z0, 0(DI)(R10*1)
	VMOVUPS Z1, 64(DI)(R10*1)
	VMOVUPS Z2, 128(DI)(R10*1)
	VMOVUPS Z3, 192(DI)(R10*1)
	VMOVUPS Z4, 256(DI)(R10*1)
	VMOVUPS Z5, 320(DI)(R10*1)
	VMOVUPS Z6, 384(DI)(R10*1)
	VMOVUPS Z7, 448(DI)(R10*1)
	ADDQ $512, R10
	DECQ CX
	JNZ  chunk

done:
	VZEROUPPER
	RET
