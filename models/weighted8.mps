* Source:     Pyomo MPS Writer
* Format:     Free MPS
*
NAME nqueens_8_chess
OBJSENSE
 MAX
ROWS
 N  value
 E  c_e_row_0_
 E  c_e_row_1_
 E  c_e_row_2_
 E  c_e_row_3_
 E  c_e_row_4_
 E  c_e_row_5_
 E  c_e_row_6_
 E  c_e_row_7_
 E  c_e_col_0_
 E  c_e_col_1_
 E  c_e_col_2_
 E  c_e_col_3_
 E  c_e_col_4_
 E  c_e_col_5_
 E  c_e_col_6_
 E  c_e_col_7_
 L  c_u_diag_m7_
 L  c_u_diag_m6_
 L  c_u_diag_m5_
 L  c_u_diag_m4_
 L  c_u_diag_m3_
 L  c_u_diag_m2_
 L  c_u_diag_m1_
 L  c_u_diag_0_
 L  c_u_diag_1_
 L  c_u_diag_2_
 L  c_u_diag_3_
 L  c_u_diag_4_
 L  c_u_diag_5_
 L  c_u_diag_6_
 L  c_u_diag_7_
 L  c_u_anti_0_
 L  c_u_anti_1_
 L  c_u_anti_2_
 L  c_u_anti_3_
 L  c_u_anti_4_
 L  c_u_anti_5_
 L  c_u_anti_6_
 L  c_u_anti_7_
 L  c_u_anti_8_
 L  c_u_anti_9_
 L  c_u_anti_10_
 L  c_u_anti_11_
 L  c_u_anti_12_
 L  c_u_anti_13_
 L  c_u_anti_14_
COLUMNS
     x_0_0 value 2
     x_0_0 c_e_row_0_ 1
     x_0_0 c_e_col_0_ 1
     x_0_0 c_u_diag_0_ 1
     x_0_0 c_u_anti_0_ 1
     x_0_1 value 1
     x_0_1 c_e_row_0_ 1
     x_0_1 c_e_col_1_ 1
     x_0_1 c_u_diag_m1_ 1
     x_0_1 c_u_anti_1_ 1
     x_0_2 value 2
     x_0_2 c_e_row_0_ 1
     x_0_2 c_e_col_2_ 1
     x_0_2 c_u_diag_m2_ 1
     x_0_2 c_u_anti_2_ 1
     x_0_3 value 1
     x_0_3 c_e_row_0_ 1
     x_0_3 c_e_col_3_ 1
     x_0_3 c_u_diag_m3_ 1
     x_0_3 c_u_anti_3_ 1
     x_0_4 value 2
     x_0_4 c_e_row_0_ 1
     x_0_4 c_e_col_4_ 1
     x_0_4 c_u_diag_m4_ 1
     x_0_4 c_u_anti_4_ 1
     x_0_5 value 1
     x_0_5 c_e_row_0_ 1
     x_0_5 c_e_col_5_ 1
     x_0_5 c_u_diag_m5_ 1
     x_0_5 c_u_anti_5_ 1
     x_0_6 value 2
     x_0_6 c_e_row_0_ 1
     x_0_6 c_e_col_6_ 1
     x_0_6 c_u_diag_m6_ 1
     x_0_6 c_u_anti_6_ 1
     x_0_7 value 1
     x_0_7 c_e_row_0_ 1
     x_0_7 c_e_col_7_ 1
     x_0_7 c_u_diag_m7_ 1
     x_0_7 c_u_anti_7_ 1
     x_1_0 value 1
     x_1_0 c_e_row_1_ 1
     x_1_0 c_e_col_0_ 1
     x_1_0 c_u_diag_1_ 1
     x_1_0 c_u_anti_1_ 1
     x_1_1 value 2
     x_1_1 c_e_row_1_ 1
     x_1_1 c_e_col_1_ 1
     x_1_1 c_u_diag_0_ 1
     x_1_1 c_u_anti_2_ 1
     x_1_2 value 1
     x_1_2 c_e_row_1_ 1
     x_1_2 c_e_col_2_ 1
     x_1_2 c_u_diag_m1_ 1
     x_1_2 c_u_anti_3_ 1
     x_1_3 value 2
     x_1_3 c_e_row_1_ 1
     x_1_3 c_e_col_3_ 1
     x_1_3 c_u_diag_m2_ 1
     x_1_3 c_u_anti_4_ 1
     x_1_4 value 1
     x_1_4 c_e_row_1_ 1
     x_1_4 c_e_col_4_ 1
     x_1_4 c_u_diag_m3_ 1
     x_1_4 c_u_anti_5_ 1
     x_1_5 value 2
     x_1_5 c_e_row_1_ 1
     x_1_5 c_e_col_5_ 1
     x_1_5 c_u_diag_m4_ 1
     x_1_5 c_u_anti_6_ 1
     x_1_6 value 1
     x_1_6 c_e_row_1_ 1
     x_1_6 c_e_col_6_ 1
     x_1_6 c_u_diag_m5_ 1
     x_1_6 c_u_anti_7_ 1
     x_1_7 value 2
     x_1_7 c_e_row_1_ 1
     x_1_7 c_e_col_7_ 1
     x_1_7 c_u_diag_m6_ 1
     x_1_7 c_u_anti_8_ 1
     x_2_0 value 2
     x_2_0 c_e_row_2_ 1
     x_2_0 c_e_col_0_ 1
     x_2_0 c_u_diag_2_ 1
     x_2_0 c_u_anti_2_ 1
     x_2_1 value 1
     x_2_1 c_e_row_2_ 1
     x_2_1 c_e_col_1_ 1
     x_2_1 c_u_diag_1_ 1
     x_2_1 c_u_anti_3_ 1
     x_2_2 value 2
     x_2_2 c_e_row_2_ 1
     x_2_2 c_e_col_2_ 1
     x_2_2 c_u_diag_0_ 1
     x_2_2 c_u_anti_4_ 1
     x_2_3 value 1
     x_2_3 c_e_row_2_ 1
     x_2_3 c_e_col_3_ 1
     x_2_3 c_u_diag_m1_ 1
     x_2_3 c_u_anti_5_ 1
     x_2_4 value 2
     x_2_4 c_e_row_2_ 1
     x_2_4 c_e_col_4_ 1
     x_2_4 c_u_diag_m2_ 1
     x_2_4 c_u_anti_6_ 1
     x_2_5 value 1
     x_2_5 c_e_row_2_ 1
     x_2_5 c_e_col_5_ 1
     x_2_5 c_u_diag_m3_ 1
     x_2_5 c_u_anti_7_ 1
     x_2_6 value 2
     x_2_6 c_e_row_2_ 1
     x_2_6 c_e_col_6_ 1
     x_2_6 c_u_diag_m4_ 1
     x_2_6 c_u_anti_8_ 1
     x_2_7 value 1
     x_2_7 c_e_row_2_ 1
     x_2_7 c_e_col_7_ 1
     x_2_7 c_u_diag_m5_ 1
     x_2_7 c_u_anti_9_ 1
     x_3_0 value 1
     x_3_0 c_e_row_3_ 1
     x_3_0 c_e_col_0_ 1
     x_3_0 c_u_diag_3_ 1
     x_3_0 c_u_anti_3_ 1
     x_3_1 value 2
     x_3_1 c_e_row_3_ 1
     x_3_1 c_e_col_1_ 1
     x_3_1 c_u_diag_2_ 1
     x_3_1 c_u_anti_4_ 1
     x_3_2 value 1
     x_3_2 c_e_row_3_ 1
     x_3_2 c_e_col_2_ 1
     x_3_2 c_u_diag_1_ 1
     x_3_2 c_u_anti_5_ 1
     x_3_3 value 2
     x_3_3 c_e_row_3_ 1
     x_3_3 c_e_col_3_ 1
     x_3_3 c_u_diag_0_ 1
     x_3_3 c_u_anti_6_ 1
     x_3_4 value 1
     x_3_4 c_e_row_3_ 1
     x_3_4 c_e_col_4_ 1
     x_3_4 c_u_diag_m1_ 1
     x_3_4 c_u_anti_7_ 1
     x_3_5 value 2
     x_3_5 c_e_row_3_ 1
     x_3_5 c_e_col_5_ 1
     x_3_5 c_u_diag_m2_ 1
     x_3_5 c_u_anti_8_ 1
     x_3_6 value 1
     x_3_6 c_e_row_3_ 1
     x_3_6 c_e_col_6_ 1
     x_3_6 c_u_diag_m3_ 1
     x_3_6 c_u_anti_9_ 1
     x_3_7 value 2
     x_3_7 c_e_row_3_ 1
     x_3_7 c_e_col_7_ 1
     x_3_7 c_u_diag_m4_ 1
     x_3_7 c_u_anti_10_ 1
     x_4_0 value 2
     x_4_0 c_e_row_4_ 1
     x_4_0 c_e_col_0_ 1
     x_4_0 c_u_diag_4_ 1
     x_4_0 c_u_anti_4_ 1
     x_4_1 value 1
     x_4_1 c_e_row_4_ 1
     x_4_1 c_e_col_1_ 1
     x_4_1 c_u_diag_3_ 1
     x_4_1 c_u_anti_5_ 1
     x_4_2 value 2
     x_4_2 c_e_row_4_ 1
     x_4_2 c_e_col_2_ 1
     x_4_2 c_u_diag_2_ 1
     x_4_2 c_u_anti_6_ 1
     x_4_3 value 1
     x_4_3 c_e_row_4_ 1
     x_4_3 c_e_col_3_ 1
     x_4_3 c_u_diag_1_ 1
     x_4_3 c_u_anti_7_ 1
     x_4_4 value 2
     x_4_4 c_e_row_4_ 1
     x_4_4 c_e_col_4_ 1
     x_4_4 c_u_diag_0_ 1
     x_4_4 c_u_anti_8_ 1
     x_4_5 value 1
     x_4_5 c_e_row_4_ 1
     x_4_5 c_e_col_5_ 1
     x_4_5 c_u_diag_m1_ 1
     x_4_5 c_u_anti_9_ 1
     x_4_6 value 2
     x_4_6 c_e_row_4_ 1
     x_4_6 c_e_col_6_ 1
     x_4_6 c_u_diag_m2_ 1
     x_4_6 c_u_anti_10_ 1
     x_4_7 value 1
     x_4_7 c_e_row_4_ 1
     x_4_7 c_e_col_7_ 1
     x_4_7 c_u_diag_m3_ 1
     x_4_7 c_u_anti_11_ 1
     x_5_0 value 1
     x_5_0 c_e_row_5_ 1
     x_5_0 c_e_col_0_ 1
     x_5_0 c_u_diag_5_ 1
     x_5_0 c_u_anti_5_ 1
     x_5_1 value 2
     x_5_1 c_e_row_5_ 1
     x_5_1 c_e_col_1_ 1
     x_5_1 c_u_diag_4_ 1
     x_5_1 c_u_anti_6_ 1
     x_5_2 value 1
     x_5_2 c_e_row_5_ 1
     x_5_2 c_e_col_2_ 1
     x_5_2 c_u_diag_3_ 1
     x_5_2 c_u_anti_7_ 1
     x_5_3 value 2
     x_5_3 c_e_row_5_ 1
     x_5_3 c_e_col_3_ 1
     x_5_3 c_u_diag_2_ 1
     x_5_3 c_u_anti_8_ 1
     x_5_4 value 1
     x_5_4 c_e_row_5_ 1
     x_5_4 c_e_col_4_ 1
     x_5_4 c_u_diag_1_ 1
     x_5_4 c_u_anti_9_ 1
     x_5_5 value 2
     x_5_5 c_e_row_5_ 1
     x_5_5 c_e_col_5_ 1
     x_5_5 c_u_diag_0_ 1
     x_5_5 c_u_anti_10_ 1
     x_5_6 value 1
     x_5_6 c_e_row_5_ 1
     x_5_6 c_e_col_6_ 1
     x_5_6 c_u_diag_m1_ 1
     x_5_6 c_u_anti_11_ 1
     x_5_7 value 2
     x_5_7 c_e_row_5_ 1
     x_5_7 c_e_col_7_ 1
     x_5_7 c_u_diag_m2_ 1
     x_5_7 c_u_anti_12_ 1
     x_6_0 value 2
     x_6_0 c_e_row_6_ 1
     x_6_0 c_e_col_0_ 1
     x_6_0 c_u_diag_6_ 1
     x_6_0 c_u_anti_6_ 1
     x_6_1 value 1
     x_6_1 c_e_row_6_ 1
     x_6_1 c_e_col_1_ 1
     x_6_1 c_u_diag_5_ 1
     x_6_1 c_u_anti_7_ 1
     x_6_2 value 2
     x_6_2 c_e_row_6_ 1
     x_6_2 c_e_col_2_ 1
     x_6_2 c_u_diag_4_ 1
     x_6_2 c_u_anti_8_ 1
     x_6_3 value 1
     x_6_3 c_e_row_6_ 1
     x_6_3 c_e_col_3_ 1
     x_6_3 c_u_diag_3_ 1
     x_6_3 c_u_anti_9_ 1
     x_6_4 value 2
     x_6_4 c_e_row_6_ 1
     x_6_4 c_e_col_4_ 1
     x_6_4 c_u_diag_2_ 1
     x_6_4 c_u_anti_10_ 1
     x_6_5 value 1
     x_6_5 c_e_row_6_ 1
     x_6_5 c_e_col_5_ 1
     x_6_5 c_u_diag_1_ 1
     x_6_5 c_u_anti_11_ 1
     x_6_6 value 2
     x_6_6 c_e_row_6_ 1
     x_6_6 c_e_col_6_ 1
     x_6_6 c_u_diag_0_ 1
     x_6_6 c_u_anti_12_ 1
     x_6_7 value 1
     x_6_7 c_e_row_6_ 1
     x_6_7 c_e_col_7_ 1
     x_6_7 c_u_diag_m1_ 1
     x_6_7 c_u_anti_13_ 1
     x_7_0 value 1
     x_7_0 c_e_row_7_ 1
     x_7_0 c_e_col_0_ 1
     x_7_0 c_u_diag_7_ 1
     x_7_0 c_u_anti_7_ 1
     x_7_1 value 2
     x_7_1 c_e_row_7_ 1
     x_7_1 c_e_col_1_ 1
     x_7_1 c_u_diag_6_ 1
     x_7_1 c_u_anti_8_ 1
     x_7_2 value 1
     x_7_2 c_e_row_7_ 1
     x_7_2 c_e_col_2_ 1
     x_7_2 c_u_diag_5_ 1
     x_7_2 c_u_anti_9_ 1
     x_7_3 value 2
     x_7_3 c_e_row_7_ 1
     x_7_3 c_e_col_3_ 1
     x_7_3 c_u_diag_4_ 1
     x_7_3 c_u_anti_10_ 1
     x_7_4 value 1
     x_7_4 c_e_row_7_ 1
     x_7_4 c_e_col_4_ 1
     x_7_4 c_u_diag_3_ 1
     x_7_4 c_u_anti_11_ 1
     x_7_5 value 2
     x_7_5 c_e_row_7_ 1
     x_7_5 c_e_col_5_ 1
     x_7_5 c_u_diag_2_ 1
     x_7_5 c_u_anti_12_ 1
     x_7_6 value 1
     x_7_6 c_e_row_7_ 1
     x_7_6 c_e_col_6_ 1
     x_7_6 c_u_diag_1_ 1
     x_7_6 c_u_anti_13_ 1
     x_7_7 value 2
     x_7_7 c_e_row_7_ 1
     x_7_7 c_e_col_7_ 1
     x_7_7 c_u_diag_0_ 1
     x_7_7 c_u_anti_14_ 1
RHS
     RHS c_e_row_0_ 1
     RHS c_e_row_1_ 1
     RHS c_e_row_2_ 1
     RHS c_e_row_3_ 1
     RHS c_e_row_4_ 1
     RHS c_e_row_5_ 1
     RHS c_e_row_6_ 1
     RHS c_e_row_7_ 1
     RHS c_e_col_0_ 1
     RHS c_e_col_1_ 1
     RHS c_e_col_2_ 1
     RHS c_e_col_3_ 1
     RHS c_e_col_4_ 1
     RHS c_e_col_5_ 1
     RHS c_e_col_6_ 1
     RHS c_e_col_7_ 1
     RHS c_u_diag_m7_ 1
     RHS c_u_diag_m6_ 1
     RHS c_u_diag_m5_ 1
     RHS c_u_diag_m4_ 1
     RHS c_u_diag_m3_ 1
     RHS c_u_diag_m2_ 1
     RHS c_u_diag_m1_ 1
     RHS c_u_diag_0_ 1
     RHS c_u_diag_1_ 1
     RHS c_u_diag_2_ 1
     RHS c_u_diag_3_ 1
     RHS c_u_diag_4_ 1
     RHS c_u_diag_5_ 1
     RHS c_u_diag_6_ 1
     RHS c_u_diag_7_ 1
     RHS c_u_anti_0_ 1
     RHS c_u_anti_1_ 1
     RHS c_u_anti_2_ 1
     RHS c_u_anti_3_ 1
     RHS c_u_anti_4_ 1
     RHS c_u_anti_5_ 1
     RHS c_u_anti_6_ 1
     RHS c_u_anti_7_ 1
     RHS c_u_anti_8_ 1
     RHS c_u_anti_9_ 1
     RHS c_u_anti_10_ 1
     RHS c_u_anti_11_ 1
     RHS c_u_anti_12_ 1
     RHS c_u_anti_13_ 1
     RHS c_u_anti_14_ 1
BOUNDS
 BV BOUND x_0_0
 BV BOUND x_0_1
 BV BOUND x_0_2
 BV BOUND x_0_3
 BV BOUND x_0_4
 BV BOUND x_0_5
 BV BOUND x_0_6
 BV BOUND x_0_7
 BV BOUND x_1_0
 BV BOUND x_1_1
 BV BOUND x_1_2
 BV BOUND x_1_3
 BV BOUND x_1_4
 BV BOUND x_1_5
 BV BOUND x_1_6
 BV BOUND x_1_7
 BV BOUND x_2_0
 BV BOUND x_2_1
 BV BOUND x_2_2
 BV BOUND x_2_3
 BV BOUND x_2_4
 BV BOUND x_2_5
 BV BOUND x_2_6
 BV BOUND x_2_7
 BV BOUND x_3_0
 BV BOUND x_3_1
 BV BOUND x_3_2
 BV BOUND x_3_3
 BV BOUND x_3_4
 BV BOUND x_3_5
 BV BOUND x_3_6
 BV BOUND x_3_7
 BV BOUND x_4_0
 BV BOUND x_4_1
 BV BOUND x_4_2
 BV BOUND x_4_3
 BV BOUND x_4_4
 BV BOUND x_4_5
 BV BOUND x_4_6
 BV BOUND x_4_7
 BV BOUND x_5_0
 BV BOUND x_5_1
 BV BOUND x_5_2
 BV BOUND x_5_3
 BV BOUND x_5_4
 BV BOUND x_5_5
 BV BOUND x_5_6
 BV BOUND x_5_7
 BV BOUND x_6_0
 BV BOUND x_6_1
 BV BOUND x_6_2
 BV BOUND x_6_3
 BV BOUND x_6_4
 BV BOUND x_6_5
 BV BOUND x_6_6
 BV BOUND x_6_7
 BV BOUND x_7_0
 BV BOUND x_7_1
 BV BOUND x_7_2
 BV BOUND x_7_3
 BV BOUND x_7_4
 BV BOUND x_7_5
 BV BOUND x_7_6
 BV BOUND x_7_7
ENDATA
