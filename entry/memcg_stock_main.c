// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild links memcg_stock.ko from several objects and cannot also compile
 * a memcg_stock.c into it under its own name; this unit builds it.
 */
#include "memcg_stock.c"
