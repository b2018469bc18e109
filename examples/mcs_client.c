// SPDX-License-Identifier: GPL-2.0
/*
 * A client of memcg_stock that uses nothing but the public header: what a
 * module that is not ours sees.  scripts/checks/api-check.sh builds it against
 * the module's Module.symvers (it must build), and once more with
 * MCS_CLIENT_USES_INTERNALS defined, where it reaches for an internal
 * symbol and modpost must refuse it (namespace MEMCG_STOCK_INTERNAL is
 * not imported).  Loading it charges and uncharges one memcg and checks
 * that nothing is left charged.
 */
#include <linux/err.h>
#include <linux/module.h>

#include "memcg_stock.h"

#ifdef MCS_CLIENT_USES_INTERNALS
struct kmem_cache *mcs_memcg_cache(void);
#endif

static int __init mcs_client_init(void)
{
	struct mcs_charge c = { };
	struct mcs_memcg *memcg;
	struct mcs_objcg *objcg;
	int ret;

	memcg = mcs_memcg_create(NULL, "mcs_client");
	if (IS_ERR(memcg))
		return PTR_ERR(memcg);

	ret = mcs_charge_pages(memcg, GFP_KERNEL, 4);
	if (!ret)
		mcs_uncharge_pages(memcg, 4);

	if (!ret)
		ret = mcs_charge_try(&c, memcg, GFP_KERNEL, 1);
	if (!ret) {
		mcs_charge_commit(&c);
		mcs_charge_uncharge(&c);
	}

	objcg = mcs_memcg_tryget_objcg(memcg);
	if (!ret && objcg) {
		ret = mcs_obj_charge(objcg, GFP_KERNEL, 100);
		if (!ret)
			ret = mcs_obj_uncharge(objcg, 100);
	}
	if (objcg)
		mcs_objcg_put(objcg);

#ifdef MCS_CLIENT_USES_INTERNALS
	pr_info("mcs_client: %p\n", mcs_memcg_cache());
#endif
	mcs_drain_all_stock(memcg, true);
	if (!ret && mcs_memcg_usage(memcg))
		ret = -EUCLEAN;
	if (mcs_memcg_offline(memcg) && !ret)
		ret = -EBUSY;
	mcs_memcg_put(memcg);
	return ret;
}

static void __exit mcs_client_exit(void)
{
}

module_init(mcs_client_init);
module_exit(mcs_client_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memcg_stock: a client of the public API only");
