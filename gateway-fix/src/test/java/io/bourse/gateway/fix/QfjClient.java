package io.bourse.gateway.fix;

import quickfix.Application;
import quickfix.ConfigError;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.MessageStoreFactory;
import quickfix.ScreenLogFactory;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionNotFound;
import quickfix.SessionSettings;
import quickfix.SocketInitiator;
import quickfix.field.MsgType;
import quickfix.field.Password;
import quickfix.field.Text;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An unmodified QuickFIX/J 3.0.0 initiator for one session, recording what it receives: application messages,
 * and the Text of Logouts, received and sent.
 */
final class QfjClient implements Application, AutoCloseable
{
    final SessionID sessionId;
    final BlockingQueue<Message> received = new LinkedBlockingQueue<>();
    final BlockingQueue<String> logoutTexts = new LinkedBlockingQueue<>();
    /**
     * The Text of the Logouts this client sent: QuickFIX/J's own reason for ending a session (a MsgSeqNum too low).
     */
    final BlockingQueue<String> sentLogoutTexts = new LinkedBlockingQueue<>();
    private final String password;
    private final SocketInitiator initiator;
    private volatile boolean loggedOn;

    QfjClient(final int port, final String senderCompId, final String password)
    {
        this(port, senderCompId, password, new MemoryStoreFactory());
    }

    QfjClient(final int port, final String senderCompId, final String password, final MessageStoreFactory store)
    {
        this.password = password;
        this.sessionId = new SessionID("FIX.4.4", senderCompId, FixTestExchange.GATEWAY_COMP_ID);
        final SessionSettings settings = new SessionSettings();
        settings.setString("ConnectionType", "initiator");
        settings.setString("SocketConnectHost", "127.0.0.1");
        settings.setLong("SocketConnectPort", port);
        settings.setString("StartTime", "00:00:00");
        settings.setString("EndTime", "00:00:00");
        settings.setLong("HeartBtInt", 30);
        settings.setLong("ReconnectInterval", 1);
        settings.setString("UseDataDictionary", "Y");
        settings.setString("DataDictionary", "FIX44.xml");
        settings.setString(sessionId, "BeginString", "FIX.4.4");
        try
        {
            initiator = new SocketInitiator(this, store, settings, new ScreenLogFactory(false, false, false),
                new DefaultMessageFactory());
            initiator.start();
        }
        catch (final ConfigError ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    QfjClient awaitLogon()
    {
        FixTestExchange.await(sessionId.getSenderCompID() + " logged on", () -> loggedOn);
        return this;
    }

    boolean isLoggedOn()
    {
        return loggedOn;
    }

    Session session()
    {
        return Session.lookupSession(sessionId);
    }

    void send(final Message message)
    {
        try
        {
            if (!Session.sendToTarget(message, sessionId))
            {
                throw new AssertionError("QuickFIX/J did not send " + message);
            }
        }
        catch (final SessionNotFound ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * The next application message, of the given MsgType.
     */
    Message next(final String msgType)
    {
        try
        {
            final Message message = received.poll(FixTestExchange.TIMEOUT_NS, TimeUnit.NANOSECONDS);
            if (message == null)
            {
                throw new AssertionError(sessionId.getSenderCompID() + ": no message of type " + msgType + " came");
            }
            final String type = message.getHeader().getString(MsgType.FIELD);
            if (!type.equals(msgType))
            {
                throw new AssertionError(sessionId.getSenderCompID() + ": expected MsgType " + msgType + ", got " +
                    message);
            }
            return message;
        }
        catch (final InterruptedException | FieldNotFound ex)
        {
            throw new AssertionError(ex);
        }
    }

    /**
     * Nothing more arrives within the given time (for checks that something did not happen).
     */
    Message poll(final long timeoutMs) throws InterruptedException
    {
        return received.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    public void close()
    {
        initiator.stop(true);
    }

    public void onCreate(final SessionID sessionId)
    {
    }

    public void onLogon(final SessionID sessionId)
    {
        loggedOn = true;
    }

    public void onLogout(final SessionID sessionId)
    {
        loggedOn = false;
    }

    public void toAdmin(final Message message, final SessionID sessionId)
    {
        try
        {
            final String type = message.getHeader().getString(MsgType.FIELD);
            if (MsgType.LOGON.equals(type))
            {
                message.setString(Password.FIELD, password);
            }
            else if (MsgType.LOGOUT.equals(type))
            {
                sentLogoutTexts.add(message.isSetField(Text.FIELD) ? message.getString(Text.FIELD) : "");
            }
        }
        catch (final FieldNotFound ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    public void fromAdmin(final Message message, final SessionID sessionId) throws FieldNotFound
    {
        if (MsgType.LOGOUT.equals(message.getHeader().getString(MsgType.FIELD)))
        {
            logoutTexts.add(message.isSetField(Text.FIELD) ? message.getString(Text.FIELD) : "");
        }
    }

    public void toApp(final Message message, final SessionID sessionId)
    {
    }

    public void fromApp(final Message message, final SessionID sessionId)
    {
        received.add(message);
    }
}
