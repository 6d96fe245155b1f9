export function OrdersPage() {
  return <h1>Orders</h1>;
}

export function OrderPage() {
  return <h1>Order</h1>;
}
