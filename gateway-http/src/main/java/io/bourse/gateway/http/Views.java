package io.bourse.gateway.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * JSON shapes of the API (the OpenAPI document's schemas): prices and quantities as decimal strings, times as
 * Unix milliseconds, enumerations in upper case as the engine names them.
 */
final class Views
{
    /**
     * Strict about input: text after the JSON value and repeated field names are malformed, not silently dropped.
     */
    static final ObjectMapper MAPPER = new ObjectMapper()
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Views()
    {
    }

    static ObjectNode instrument(final InstrumentView i)
    {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("symbol", i.symbol());
        node.put("id", i.id());
        node.put("baseAsset", i.baseAsset());
        node.put("quoteAsset", i.quoteAsset());
        node.put("priceScale", i.priceScale());
        node.put("tickSize", i.price(i.tickSize()));
        node.put("quantityScale", i.quantityScale());
        node.put("lotSize", i.quantity(i.lotSize()));
        node.put("minQuantity", i.quantity(i.minQuantity()));
        node.put("maxQuantity", i.quantity(i.maxQuantity()));
        node.put("priceBandBps", i.priceBandBps());
        node.put("referencePrice", i.price(i.referencePrice()));
        node.put("makerFeePpm", i.makerFeePpm());
        node.put("takerFeePpm", i.takerFeePpm());
        node.put("tradingState", i.tradingState());
        return node;
    }

    static ObjectNode order(final OrderView o, final InstrumentView i)
    {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("orderId", Long.toString(o.orderId));
        node.put("clientOrderId", ClientOrderIds.decode(o.clientOrderId));
        node.put("symbol", i.symbol());
        node.put("side", o.side);
        node.put("type", o.type);
        node.put("timeInForce", o.timeInForce);
        if (o.expiryNs != 0)
        {
            node.put("expireTime", o.expiryNs / 1_000_000);
        }
        if (o.postOnly != null)
        {
            node.put("postOnly", o.postOnly);
        }
        if (o.selfTradePrevention != null)
        {
            node.put("selfTradePrevention", o.selfTradePrevention);
        }
        node.put("price", i.price(o.price));
        if (o.stopPrice != 0)
        {
            node.put("stopPrice", i.price(o.stopPrice));
            node.put("triggered", o.triggeredNs != 0);
            if (o.triggeredNs != 0)
            {
                node.put("triggeredTime", o.triggeredNs / 1_000_000);
            }
        }
        node.put("quantity", i.quantity(o.quantity));
        if (o.quoteAmount != 0)
        {
            node.put("quoteAmount", i.quote(o.quoteAmount));
        }
        node.put("filledQuantity", i.quantity(o.filledQuantity));
        node.put("remainingQuantity", i.quantity(o.isOpen() ? Math.max(0, o.quantity - o.filledQuantity) : 0));
        node.put("executedNotional", i.quote(o.executedNotional));
        node.put("status", o.status);
        if (o.cancelReason != null)
        {
            node.put("cancelReason", o.cancelReason);
        }
        node.put("createdTime", o.createdNs / 1_000_000);
        node.put("updatedTime", o.updatedNs / 1_000_000);
        return node;
    }

    static ObjectNode fill(final ReadModel.FillView f, final InstrumentView i)
    {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("tradeId", Long.toString(f.tradeId()));
        node.put("orderId", Long.toString(f.orderId()));
        node.put("clientOrderId", ClientOrderIds.decode(f.clientOrderId()));
        node.put("symbol", i.symbol());
        node.put("side", f.side());
        node.put("liquidity", f.liquidity());
        node.put("price", i.price(f.price()));
        node.put("quantity", i.quantity(f.quantity()));
        node.put("fee", i.quote(f.fee()));
        node.put("feeAsset", i.quoteAsset());
        node.put("time", f.timestampNs() / 1_000_000);
        return node;
    }

    static ObjectNode trade(final ReadModel.TradeView t, final InstrumentView i)
    {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("tradeId", Long.toString(t.tradeId()));
        node.put("symbol", i.symbol());
        node.put("price", i.price(t.price()));
        node.put("quantity", i.quantity(t.quantity()));
        node.put("takerSide", t.takerSide());
        node.put("time", t.timestampNs() / 1_000_000);
        return node;
    }

    static ArrayNode levels(final TreeMap<Long, ReadModel.Level> side, final int depth, final InstrumentView i)
    {
        final ArrayNode array = MAPPER.createArrayNode();
        for (final long[] level : ReadModel.levels(side, depth))
        {
            final ObjectNode node = array.addObject();
            node.put("price", i.price(level[0]));
            node.put("quantity", i.quantity(level[1]));
            node.put("orders", (int)level[2]);
        }
        return array;
    }

    static ObjectNode book(final ReadModel.Market market, final int depth, final InstrumentView i)
    {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("symbol", i.symbol());
        node.put("sequence", market.sequence);
        node.set("bids", levels(market.bids, depth, i));
        node.set("asks", levels(market.asks, depth, i));
        return node;
    }

    static ArrayNode levelChanges(final List<ReadModel.LevelChange> changes, final InstrumentView i)
    {
        final ArrayNode array = MAPPER.createArrayNode();
        for (final ReadModel.LevelChange change : changes)
        {
            final ObjectNode node = array.addObject();
            node.put("side", change.side());
            node.put("price", i.price(change.price()));
            node.put("quantity", i.quantity(change.quantity()));
            node.put("orders", change.orderCount());
        }
        return array;
    }

    /**
     * The last price (the day's close), the best bid and ask, and the rolling day's open, high, low, volume, quote
     * volume and trade count: of the current minute and the 1,439 before it. {@code since} says from when every trade
     * is counted: the day's start, or later while the gateway lacks some of the day's trades.
     */
    static ObjectNode ticker(final ReadModel model, final InstrumentView i)
    {
        final ReadModel.Market market = model.market(i.id());
        final MinuteBars.Bar day = market.bars.day(model.nowNs());
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("type", "ticker");
        node.put("symbol", i.symbol());
        node.put("lastPrice", market.lastPrice == 0 ? null : i.price(market.lastPrice));
        node.put("bestBid", market.bids.isEmpty() ? null : i.price(market.bids.firstKey()));
        node.put("bestAsk", market.asks.isEmpty() ? null : i.price(market.asks.firstKey()));
        putBar(node, day, i, false);
        node.put("since", Math.max(day.startMinute() * MinuteBars.MINUTE_NS, model.barsFromNs()) / 1_000_000);
        return node;
    }

    /**
     * A candle of {@code GET /api/v1/candles/{symbol}}: the interval's start (epoch milliseconds) and its trades.
     */
    static ObjectNode candle(final MinuteBars.Bar bar, final InstrumentView i)
    {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("time", bar.startMinute() * MinuteBars.MINUTE_NS / 1_000_000);
        putBar(node, bar, i, true);
        return node;
    }

    /**
     * A bar's prices (null without a trade), volume, quote volume and trade count, as the ticker and candles have them.
     *
     * @param close whether to write its close (the ticker has the last price instead).
     */
    private static void putBar(final ObjectNode node, final MinuteBars.Bar bar, final InstrumentView i,
        final boolean close)
    {
        final boolean traded = bar.trades() > 0;
        node.put("open", traded ? i.price(bar.open()) : null);
        node.put("high", traded ? i.price(bar.high()) : null);
        node.put("low", traded ? i.price(bar.low()) : null);
        if (close)
        {
            node.put("close", traded ? i.price(bar.close()) : null);
        }
        node.put("volume", i.quantity(bar.volume()));
        node.put("quoteVolume", quoteAmount(bar.quote(), i));
        node.put("tradeCount", bar.trades());
    }

    /**
     * Price times quantity, summed in units of both scales together, as an amount of the quote asset: rounded half
     * even to the quote asset's scale where that is coarser.
     */
    private static String quoteAmount(final BigInteger units, final InstrumentView i)
    {
        return new BigDecimal(units, i.priceScale() + i.quantityScale())
            .setScale(i.quoteScale(), RoundingMode.HALF_EVEN).toPlainString();
    }

    /**
     * An account as an operator and its own key see it: its kill switch, limits (as {@code PUT .../limits} takes
     * them), its own fee rates (as {@code PUT .../fees} takes them: null for the instruments'), open orders and
     * balances.
     */
    static ObjectNode account(final ReadModel model, final long accountId, final ReadModel.AccountState account)
    {
        final ObjectNode node = balances(model, accountId);
        node.put("killSwitch", account.killSwitch);
        node.put("maxOrderQuantity", account.maxOrderQuantity);
        node.put("maxOrderNotional", account.maxOrderNotional);
        node.put("maxOpenOrders", account.maxOpenOrders);
        node.put("selfTradePrevention", account.defaultSelfTradePrevention.name());
        ownFeeRate(node, "makerFeePpm", account.makerFeePpm);
        ownFeeRate(node, "takerFeePpm", account.takerFeePpm);
        node.put("openOrders", account.openOrders.size());
        return node;
    }

    private static void ownFeeRate(final ObjectNode node, final String field, final int feePpm)
    {
        if (feePpm < 0)
        {
            node.putNull(field);
        }
        else
        {
            node.put(field, feePpm);
        }
    }

    /**
     * {@code GET /api/v1/fees}: the rates the account pays on each instrument, its own where it has them.
     */
    static ObjectNode fees(final ReadModel model, final long accountId)
    {
        final ReadModel.AccountState account = model.existingAccount(accountId);
        final int maker = account == null ? -1 : account.makerFeePpm;
        final int taker = account == null ? -1 : account.takerFeePpm;
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("accountId", Long.toString(accountId));
        final ArrayNode array = node.putArray("instruments");
        model.instruments().stream().sorted(Comparator.comparing(InstrumentView::symbol)).forEach(i ->
        {
            final ObjectNode row = array.addObject();
            row.put("symbol", i.symbol());
            row.put("makerFeePpm", maker < 0 ? i.makerFeePpm() : maker);
            row.put("takerFeePpm", taker < 0 ? i.takerFeePpm() : taker);
        });
        return node;
    }

    static ObjectNode balances(final ReadModel model, final long accountId)
    {
        final ObjectNode node = MAPPER.createObjectNode();
        node.put("accountId", Long.toString(accountId));
        final ArrayNode array = node.putArray("balances");
        final ReadModel.AccountState account = model.existingAccount(accountId);
        for (final int assetId : model.assetIds())
        {
            final long[] balance = account == null ? null : account.balances.get(assetId);
            final int scale = model.assetScale(assetId);
            final ObjectNode b = array.addObject();
            b.put("asset", model.assetSymbol(assetId));
            b.put("available", Decimals.format(balance == null ? 0 : balance[0], scale));
            b.put("reserved", Decimals.format(balance == null ? 0 : balance[1], scale));
        }
        return node;
    }
}
